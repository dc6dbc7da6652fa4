/**
 * PDF engine factory (spec §4.6): pdf-lib for merging and metadata, ghostscript for PDF/A,
 * qpdf and poppler for repair and inspection. Stateless: nothing to start or stop.
 */
import type { EngineOptions } from '../options.js';
import type { PdfEngine } from './types.js';
import { loadPdf } from './load.js';
import { mergePlain, mergeTagged } from './merge.js';
import { finalize, PRODUCER } from './metadata.js';
import { findSrgbProfile, toPdfA } from './pdfa.js';
import { check, inspect } from './inspect.js';

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
      const { doc, tagged } = o.keepStructure ? await mergeTagged(docs) : { doc: await mergePlain(docs), tagged: false };
      // Ghostscript 10.0 (the PDF/A step) drops the bookmarks of a file whose trailer has no
      // document information dictionary; naming the producer gives it one.
      doc.setProducer(PRODUCER);
      const pdf = await doc.save({ updateFieldAppearances: false });
      return { pdf, pages: doc.getPageCount(), tagged };
    },
    toPdfA: (pdf, part) => toPdfA(pdf, part, icc, gs),
    finalize,
    inspect,
    check,
    async close() {},
  };
}
