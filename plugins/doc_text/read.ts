/**
 * Reads a document page by page (issue 15, doc-to-text): PDFs with poppler (`pdfinfo`,
 * `pdftotext`), office formats through the warm LibreOffice pool first, images and pages without
 * a text layer (scans) by OCR (`pdftoppm` then `tesseract`). Only the selected pages are read.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, OperationFailedError, ServiceError, type Engines } from '../../core/sdk.js';
import { OFFICE_EXTENSIONS, routeOf } from './format.js';
import { type LoadedInput } from '../../core/sdk.js';
import { selectPages } from './pages.js';
import { Gate, ToolError, runTool, withScratch } from '../../core/sdk.js';

/** One page read. */
export interface PageText {
  page: number;
  text: string;
  ocr: boolean;
}

/** A document read. */
export interface DocumentText {
  pageCount: number;
  pages: PageText[];
  format: string;
}

/** What the reader needs besides the input. */
export interface ReadOptions {
  engines: Engines;
  signal: AbortSignal;
  /** The caller's key id: office conversions are queued in turns across callers. */
  caller?: string;
  /** Bounds poppler/tesseract processes on the instance. */
  gate: Gate;
  /** Tesseract languages (`eng`, `eng+deu`). */
  ocrLanguages: string;
  /** Time limit of one tool run. */
  toolTimeoutMs: number;
  /** The caller's `fileExtension`. */
  hint?: string;
  /** The caller's page selection. */
  pages?: string;
}

/** A page with fewer letters or digits than this has no usable text layer and is OCRed. */
const MIN_TEXT_CHARS = 3;
const failed = (reason: string, cause?: unknown) => new OperationFailedError(`Failed to extract document data: ${reason}`, { cause });

/** Tidies one page of text: no form feeds, no trailing spaces, at most one blank line in a row. */
function tidy(text: string): string {
  return text.replace(/\f/g, '').replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n').trim();
}

/** Reads `input` (see the module comment). */
export async function readDocument(input: LoadedInput, opts: ReadOptions): Promise<DocumentText> {
  const route = routeOf(input, opts.hint);
  if (route.kind === 'text') {
    selectPages(opts.pages, 1);
    return { pageCount: 1, pages: [{ page: 1, text: tidy(input.data.toString('utf8')), ocr: false }], format: 'txt' };
  }
  return withScratch('doc-text', async (dir) => {
    if (route.kind === 'image') {
      selectPages(opts.pages, 1);
      const file = join(dir, `in.${route.ext}`);
      await writeFile(file, input.data);
      return { pageCount: 1, pages: [{ page: 1, text: await ocr(file, opts), ocr: true }], format: route.ext };
    }
    let pdf = input.data as Uint8Array;
    let format = 'pdf';
    if (route.kind === 'office') {
      const result = await opts.engines.office.convert(
        { data: input.data, extension: route.ext },
        { tagged: false, plainText: route.ext === 'txt' || route.ext === 'csv', formats: OFFICE_EXTENSIONS, signal: opts.signal, owner: opts.caller },
      );
      pdf = result.pdf;
      format = route.ext ?? 'document';
    }
    const file = join(dir, 'in.pdf');
    await writeFile(file, pdf);
    const pageCount = await countPages(file, opts);
    const wanted = selectPages(opts.pages, pageCount);
    const texts = await textLayer(file, wanted[0]!, wanted.at(-1)!, opts);
    const pages = await Promise.all(
      wanted.map(async (page): Promise<PageText> => {
        const text = tidy(texts[page - wanted[0]!] ?? '');
        if ((text.match(/[\p{L}\p{N}]/gu) ?? []).length >= MIN_TEXT_CHARS) return { page, text, ocr: false };
        return { page, text: await ocrPage(file, page, dir, opts), ocr: true };
      }),
    );
    return { pageCount, pages, format };
  });
}

/** `pdfinfo`'s page count; a PDF it cannot open is the caller's input (400). */
async function countPages(file: string, opts: ReadOptions): Promise<number> {
  let out: string;
  try {
    out = (await opts.gate.run(() => runTool('pdfinfo', [file], { signal: opts.signal, timeoutMs: opts.toolTimeoutMs }), opts.signal)).stdout.toString();
  } catch (err) {
    if (opts.signal.aborted) throw err;
    const stderr = err instanceof ToolError ? err.stderr : '';
    if (/password/i.test(stderr)) throw new InputError('The file is password-protected; remove the password and retry.');
    throw new InputError('The file is not a readable PDF.', { cause: err });
  }
  const pages = Number(/^Pages:\s+(\d+)/m.exec(out)?.[1]);
  if (!Number.isInteger(pages) || pages < 1) throw new InputError('The document has no pages.');
  return pages;
}

/** Text of pages `first`..`last`, one string per page (pdftotext ends each page with a form feed). */
async function textLayer(file: string, first: number, last: number, opts: ReadOptions): Promise<string[]> {
  try {
    const { stdout } = await opts.gate.run(
      () => runTool('pdftotext', ['-f', String(first), '-l', String(last), '-enc', 'UTF-8', file, '-'], { signal: opts.signal, timeoutMs: opts.toolTimeoutMs }),
      opts.signal,
    );
    return stdout.toString('utf8').split('\f');
  } catch (err) {
    if (opts.signal.aborted || err instanceof ServiceError) throw err;
    throw failed('the text of the PDF could not be read.', err);
  }
}

/** Renders one page at 300 dpi in grey and OCRs it. */
async function ocrPage(file: string, page: number, dir: string, opts: ReadOptions): Promise<string> {
  const base = join(dir, `page-${page}`);
  try {
    await opts.gate.run(
      () => runTool('pdftoppm', ['-r', '300', '-gray', '-png', '-singlefile', '-f', String(page), '-l', String(page), file, base], { signal: opts.signal, timeoutMs: opts.toolTimeoutMs }),
      opts.signal,
    );
  } catch (err) {
    if (opts.signal.aborted) throw err;
    throw failed(`page ${page} could not be rendered for OCR.`, err);
  }
  return ocr(`${base}.png`, opts);
}

/** Tesseract's text of one image file. */
async function ocr(image: string, opts: ReadOptions): Promise<string> {
  try {
    const { stdout } = await opts.gate.run(
      () => runTool('tesseract', [image, 'stdout', '-l', opts.ocrLanguages, '--psm', '3'], { signal: opts.signal, timeoutMs: opts.toolTimeoutMs }),
      opts.signal,
    );
    return tidy(stdout.toString('utf8'));
  } catch (err) {
    if (opts.signal.aborted) throw err;
    const stderr = err instanceof ToolError ? err.stderr : '';
    if (/Error in pixRead|Image file .* cannot be read|Unsupported image/i.test(stderr)) throw new InputError('The image could not be read.');
    throw failed('OCR failed.', err);
  }
}
