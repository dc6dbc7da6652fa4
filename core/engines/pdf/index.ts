/**
 * PDF engine factory (spec §4.6): pdf-lib for merging and metadata, ghostscript for PDF/A,
 * qpdf and poppler for repair and inspection. Stateless: nothing to start or stop.
 */
import type { PDFDocument } from 'pdf-lib';
import type { EngineOptions } from '../options.js';
import type { PdfEngine } from './types.js';
import { loadPdf } from './load.js';
import { mergePlain } from './merge.js';
import { langOf, mergeStructure } from './structure.js';
import { finalize, PRODUCER } from './metadata.js';
import { findSrgbProfile, toPdfA } from './pdfa.js';
import { check, inspect } from './inspect.js';

/** An input's document title, if it has a usable one. */
function titleOf(doc: PDFDocument): string | undefined {
  try {
    return doc.getTitle()?.trim() || undefined;
  } catch {
    // A title that is not a string (a name, a number): as if there were none.
    return undefined;
  }
}

/** Creates the PDF tools. `GS_BINARY` and `PDF_ICC_PROFILE` override the defaults. */
export function createPdfEngine(opts: EngineOptions): PdfEngine & { close(): Promise<void> } {
  const icc = findSrgbProfile(opts.env);
  const gs = opts.env.GS_BINARY?.trim() || 'gs';
  return {
    async pageCount(pdf, label = 'file') {
      return (await loadPdf(pdf, label)).getPageCount();
    },
    async merge(files, o = {}) {
      const docs = [];
      for (const [i, f] of files.entries()) docs.push(await loadPdf(f, o.labels?.[i] ?? `files[${i}]`));
      const { doc, tagged, coarse } = o.keepStructure ? await mergeStructure(docs) : { doc: await mergePlain(docs), tagged: false, coarse: [] };
      // Ghostscript 10.0 (the PDF/A step) drops the bookmarks of a file whose trailer has no
      // document information dictionary; naming the producer gives it one.
      doc.setProducer(PRODUCER);
      const pdf = await doc.save({ updateFieldAppearances: false });
      return { pdf, pages: doc.getPageCount(), tagged, coarse, title: docs.map(titleOf).find(Boolean), lang: docs.map(langOf).find(Boolean) };
    },
    toPdfA: (pdf, part) => toPdfA(pdf, part, icc, gs),
    finalize,
    inspect,
    check,
    async close() {},
  };
}
