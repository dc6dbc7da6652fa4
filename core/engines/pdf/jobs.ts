/**
 * The PDF work that reads user files with pdf-lib (page counts, merges, metadata), as run inside
 * the PDF thread (thread.ts), never on the thread that serves requests.
 */
import { readFile } from 'node:fs/promises';
import type { PDFDocument } from 'pdf-lib';
import type { FinalizeOptions, MergeResult, PdfInput } from './types.js';
import { loadPdf } from './load.js';
import { mergePlain } from './merge.js';
import { langOf, mergeStructure } from './structure.js';
import { finalize, PRODUCER } from './metadata.js';

/** An input's document title, if it has a usable one. */
function titleOf(doc: PDFDocument): string | undefined {
  try {
    return doc.getTitle()?.trim() || undefined;
  } catch {
    // A title that is not a string (a name, a number): as if there were none.
    return undefined;
  }
}

/** What the thread can be asked to do, with its arguments. */
export interface PdfJobs {
  pageCount(a: { pdf: Uint8Array; label: string }): Promise<number>;
  merge(a: { files: PdfInput[]; labels?: string[]; keepStructure?: boolean }): Promise<MergeResult>;
  finalize(a: { pdf: Uint8Array; opts: FinalizeOptions }): Promise<Uint8Array>;
}

/** The jobs themselves. */
export const jobs: PdfJobs = {
  async pageCount({ pdf, label }) {
    return (await loadPdf(pdf, label)).getPageCount();
  },
  async merge({ files, labels, keepStructure }) {
    const docs = [];
    // A file is read here, one at a time, not on the serving thread (types.ts `PdfFile`).
    for (const [i, f] of files.entries()) docs.push(await loadPdf(f instanceof Uint8Array ? f : await readFile(f.path), labels?.[i] ?? `files[${i}]`));
    const { doc, tagged, coarse } = keepStructure ? await mergeStructure(docs) : { doc: await mergePlain(docs), tagged: false, coarse: [] };
    // Ghostscript 10.0 (the PDF/A step) drops the bookmarks of a file whose trailer has no
    // document information dictionary; naming the producer gives it one.
    doc.setProducer(PRODUCER);
    const pdf = await doc.save({ updateFieldAppearances: false });
    return { pdf, pages: doc.getPageCount(), tagged, coarse, title: docs.map(titleOf).find(Boolean), lang: docs.map(langOf).find(Boolean) };
  },
  finalize: ({ pdf, opts }) => finalize(pdf, opts),
};
