/**
 * extract-document (issue 15): every file is read (30 MB each, 100 MB in all, through the SSRF
 * guard for URLs) and its pages taken from the key-less doc_text lane (`document_pages`: poppler,
 * LibreOffice, OCR of scans), then the prompt is answered over all pages. 100 + 10 per page read,
 * plus doc_text's 5 per page it reads by OCR. Both are held before that work (issue 24): the lane
 * reports a document's page count before it reads any page (`ctx.measured`), this call holds its
 * 10 per page then, and the lane grows the hold by its OCR pages before it renders the first; a
 * key that cannot cover either is refused (403, free) before any page is read by OCR.
 */
import { InputError, MB, type Static } from '../../core/sdk.js';
import { DOC_TEXT_OCR_PAGE_CREDITS, EXTRACT_BASE_CREDITS, EXTRACT_MAX_PAGES, type extractDocument } from '../../core/catalogue.js';
import { answer } from './answer.js';
import { inputAsBase64, inputSize, loadInput, tooLarge, withScratch } from '../../core/sdk.js';
import { lane, report } from './lane.js';
import type { RunContext } from '../../core/sdk.js';

type Input = Static<typeof extractDocument.input>;
type Pages = { pageCount: number; pages: { page: number; text: string; ocr: boolean }[]; format: string };

/**
 * Runs one extract-document call. A file given by URL is written into a scratch folder as it
 * arrives and handed to doc_text as that file (issue 24): held in memory, it was also encoded to
 * base64 on the serving thread for the inner call, which then decoded it there again.
 */
export function extractDocuments(input: Input, ctx: RunContext<any, any>) {
  return input.inputMethod === 'url' ? withScratch('extract-document', (dir) => readAndAnswer(input, ctx, dir)) : readAndAnswer(input, ctx);
}

/** Reads every file (a URL's into `dir`) and answers the prompt over their pages. */
async function readAndAnswer(input: Input, ctx: RunContext<any, any>, dir?: string) {
  const l = lane(ctx);
  const max = l.settings.documentMaxMb * MB;
  const total = l.settings.documentsTotalMb * MB;
  let bytes = 0;
  const docs: Pages[] = [];
  /** Holds this call's price for `pages` read in all; more than one request reads is a 400. */
  const holdPages = async (pages: number) => {
    if (pages > EXTRACT_MAX_PAGES) throw new InputError(`The documents have more than ${EXTRACT_MAX_PAGES} pages, the most one request reads.`);
    await ctx.reserveFor({ pages });
  };
  // One at a time: the total is checked as files arrive, and doc_text's per-key share is 2.
  for (const [i, file] of input.files.entries()) {
    const label = `files[${i}]`;
    const loaded = await loadInput(ctx.engines, input.inputMethod, file, label, max, ctx.signal, dir);
    bytes += inputSize(loaded);
    if (bytes > total) throw tooLarge('files', total);
    const hint = input.fileExtension ?? loaded.pathExtension;
    const earlier = docs.reduce((n, d) => n + d.pageCount, 0);
    // A large body's file goes on in its file, neither read nor encoded here (issue 24). Its pages
    // are held as soon as the lane has counted them, before it reads or OCRs any: a key that can
    // pay for the OCR alone must not get the OCR done and then a 403 for this call's own pages.
    const doc = await ctx.call<Pages>(
      'document_pages',
      { inputMethod: 'base64', file: inputAsBase64(loaded), ...(hint ? { fileExtension: hint } : {}) },
      { onMeasured: (units) => holdPages(earlier + (units.pages ?? 0)) },
    );
    docs.push(doc);
    // Held already when the lane reported its count; this covers a provider that does not.
    await holdPages(earlier + doc.pageCount);
  }
  const pages = docs.reduce((n, d) => n + d.pageCount, 0);
  const ocrPages = docs.reduce((n, d) => n + d.pages.filter((p) => p.ocr).length, 0);
  const material = docs
    .map((d, i) => d.pages.map((p) => `=== Document ${i + 1} (${d.format}), page ${p.page}${p.ocr ? ' (OCR)' : ''} ===\n${p.text}`).join('\n\n'))
    .join('\n\n');
  const a = await answer(l.model, { prompt: input.prompt, material, kind: input.files.length > 1 ? 'documents' : 'document', json: input.jsonMode === true }, l.settings);
  ctx.usage.add('pages', pages);
  report(l, a, { documents: docs.map((d) => ({ format: d.format, pages: d.pageCount, ocrPages: d.pages.filter((p) => p.ocr).length })) });
  // The OCR pages are charged by the executor at doc_text's price (its hold grew by them).
  const creditUsage = EXTRACT_BASE_CREDITS + 10 * pages + DOC_TEXT_OCR_PAGE_CREDITS * ocrPages;
  return { results: a.results, prompt: input.prompt, pages, fileCount: docs.length, creditUsage };
}
