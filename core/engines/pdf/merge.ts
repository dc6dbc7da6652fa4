/**
 * Merging with pdf-lib (spec §4.6: page order preserved). The plain merge copies pages and keeps
 * every input's bookmarks; the structure-keeping merge for `pdfua` is in structure.ts.
 */
import { PDFDocument, PDFObjectCopier, PDFPage, PDFRef, type PDFPageLeaf } from 'pdf-lib';
import { OutlineMerger } from './outline.js';

/** Appends every page of `docs` to a new document, in order, keeping each input's bookmarks. */
export async function mergePlain(docs: PDFDocument[]): Promise<PDFDocument> {
  const out = await PDFDocument.create({ updateMetadata: false });
  const outlines = new OutlineMerger(out);
  for (const src of docs) {
    const copier = PDFObjectCopier.for(src.context, out.context);
    for (const page of src.getPages()) {
      // By reference, so bookmark destinations naming this page find the copy, not a second one.
      const ref = copier.copy(page.ref) as PDFRef;
      out.addPage(PDFPage.of(out.context.lookup(ref) as PDFPageLeaf, ref, out));
    }
    outlines.add(src, copier);
  }
  outlines.finish();
  return out;
}
