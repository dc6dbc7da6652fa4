/**
 * Reads a document page by page (issue 15, doc-to-text): PDFs with poppler (`pdfinfo`,
 * `pdftotext`), office formats through the warm LibreOffice pool first, images and pages without
 * a text layer (scans) by OCR (`pdftoppm` then `tesseract`). Only the selected pages are read.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, OperationFailedError, ServiceError, type Engines } from '../../core/sdk.js';
import { OFFICE_EXTENSIONS, routeOf } from './format.js';
import { inputBytes, inputHeadFor, writeInputFile, type LoadedInput } from '../../core/sdk.js';
import { selectPages } from './pages.js';
import { Gate, ToolError, readImageHeader, runGatedTool, withScratch } from '../../core/sdk.js';

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
  /** Most pages one call reads (selected pages); more is a 400 before any work. */
  maxPages: number;
  /** Largest bitmap a page is rendered to for OCR, in pixels. */
  maxPixels: number;
  /**
   * Told how many pages will be read once they are counted, before any is read or rendered (a
   * capability reading documents through this one prices them first; may refuse).
   */
  counted(pages: number): Promise<void>;
  /** Told how many pages will be OCRed before the first is rendered (prices them; may refuse). */
  beforeOcr(pages: number): Promise<void>;
  /** The caller's `fileExtension`. */
  hint?: string;
  /** The caller's page selection. */
  pages?: string;
}

/** A page with fewer letters or digits than this has no usable text layer and is OCRed. */
const MIN_TEXT_CHARS = 3;
/** Pages of one call rendered and OCRed at once (the instance-wide gate bounds the processes). */
const OCR_PAGES_AT_ONCE = 2;
/** Resolution pages are rendered at for OCR, and the lowest a large page may be rendered at instead. */
const OCR_DPI = 300;
const MIN_OCR_DPI = 50;
/** Tesseract refuses images wider or taller than 32767 pixels. */
const MAX_SIDE_PX = 32_000;
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
    await opts.counted(1);
    return { pageCount: 1, pages: [{ page: 1, text: tidy((await inputBytes(input)).toString('utf8')), ocr: false }], format: 'txt' };
  }
  return withScratch('doc-text', async (dir) => {
    if (route.kind === 'image') {
      selectPages(opts.pages, 1);
      // Its declared size is checked before Tesseract decodes it (a small file can hold a huge bitmap).
      const size = readImageHeader(await inputHeadFor(input, (h) => !!readImageHeader(h)));
      if (size && (size.width * size.height > opts.maxPixels || Math.max(size.width, size.height) > MAX_SIDE_PX)) {
        throw new InputError(`The image is too large to read by OCR (${size.width} × ${size.height} pixels): at most ${Math.round(opts.maxPixels / 1_000_000)} megapixels and ${MAX_SIDE_PX} pixels a side.`);
      }
      const file = join(dir, `in.${route.ext}`);
      await writeInputFile(input, file);
      await opts.counted(1);
      await opts.beforeOcr(1);
      return { pageCount: 1, pages: [{ page: 1, text: await ocr(file, opts), ocr: true }], format: route.ext };
    }
    let pdf: Uint8Array | undefined;
    let format = 'pdf';
    if (route.kind === 'office') {
      // Handed to LibreOffice as a file (a large body's or a download's copied, never read here: issue 24).
      const source = join(dir, `source.${route.ext ?? 'bin'}`);
      await writeInputFile(input, source);
      const result = await opts.engines.office.convert(
        { file: source, extension: route.ext },
        { tagged: false, plainText: route.ext === 'txt' || route.ext === 'csv', formats: OFFICE_EXTENSIONS, signal: opts.signal, owner: opts.caller },
      );
      pdf = result.pdf;
      format = route.ext ?? 'document';
    }
    const file = join(dir, 'in.pdf');
    // A PDF goes to poppler as sent (a large body's file copied, never read here: issue 24).
    if (pdf) await writeFile(file, pdf);
    else await writeInputFile(input, file);
    const pageCount = await countPages(file, opts);
    const wanted = selectPages(opts.pages, pageCount);
    if (wanted.length > opts.maxPages) {
      throw new InputError(`The selection has ${wanted.length} pages; one call reads at most ${opts.maxPages}. Choose pages with 'pages' (e.g. "1-${opts.maxPages}").`);
    }
    await opts.counted(wanted.length);
    const texts = await textLayer(file, wanted, opts);
    const pages: PageText[] = wanted.map((page) => ({ page, text: tidy(texts.get(page) ?? ''), ocr: false }));
    const scans = pages.filter((p) => (p.text.match(/[\p{L}\p{N}]/gu) ?? []).length < MIN_TEXT_CHARS);
    if (scans.length > 0) {
      // Every page to OCR is sized (and refused if too large) and priced before the first is rendered.
      const sizes = await pageSizes(file, scans[0]!.page, scans.at(-1)!.page, opts);
      const dpis = new Map(scans.map((p) => [p.page, ocrDpi(p.page, sizes.get(p.page), opts.maxPixels)]));
      await opts.beforeOcr(scans.length);
      let next = 0;
      const worker = async () => {
        while (next < scans.length) {
          opts.signal.throwIfAborted();
          const p = scans[next++]!;
          p.text = await ocrPage(file, p.page, dpis.get(p.page)!, dir, opts);
          p.ocr = true;
        }
      };
      await Promise.all(Array.from({ length: Math.min(OCR_PAGES_AT_ONCE, scans.length) }, worker));
    }
    return { pageCount, pages, format };
  });
}

/**
 * The resolution page `page` is rendered at for OCR: 300 dpi, or less for a page whose bitmap
 * would exceed `maxPixels` or Tesseract's largest side; a page that would need less than 50 dpi is refused (400) rather than
 * rendered into something no OCR reads (issue 24: such a page was silently left out).
 */
function ocrDpi(page: number, size: { w: number; h: number } | undefined, maxPixels: number): number {
  if (!size) return OCR_DPI;
  const inches = (size.w / 72) * (size.h / 72);
  const side = Math.max(size.w, size.h, 1e-6) / 72;
  const dpi = Math.min(OCR_DPI, Math.floor(Math.sqrt(maxPixels / Math.max(inches, 1e-6))), Math.floor(MAX_SIDE_PX / side));
  if (dpi < MIN_OCR_DPI) {
    const mp = Math.round(maxPixels / 1_000_000);
    throw new InputError(`Page ${page} is too large to read by OCR (${Math.round(size.w)} × ${Math.round(size.h)} pt): it does not fit ${mp} megapixels at ${MIN_OCR_DPI} dpi.`);
  }
  return dpi;
}

/**
 * Runs one tool for this call: on the run context's tool engine (the server's limits), through
 * the plugin's gate in turn with other callers.
 */
const tool = (opts: ReadOptions, cmd: string, args: string[]) =>
  runGatedTool({ gate: opts.gate, signal: opts.signal, timeoutMs: opts.toolTimeoutMs, tools: opts.engines.tools, caller: opts.caller }, cmd, args);

/** Page sizes in points of pages `first`..`last`, from `pdfinfo` (rotation applied). */
async function pageSizes(file: string, first: number, last: number, opts: ReadOptions): Promise<Map<number, { w: number; h: number }>> {
  let out: string;
  try {
    out = (await tool(opts, 'pdfinfo', ['-f', String(first), '-l', String(last), file])).stdout.toString();
  } catch (err) {
    if (opts.signal.aborted || err instanceof ServiceError) throw err;
    throw failed('the page sizes of the PDF could not be read.', err);
  }
  const sizes = new Map<number, { w: number; h: number }>();
  for (const m of out.matchAll(/^Page\s+(\d+)\s+size:\s+([\d.]+) x ([\d.]+) pts/gm)) sizes.set(Number(m[1]), { w: Number(m[2]), h: Number(m[3]) });
  return sizes;
}

/** `pdfinfo`'s page count; a PDF it cannot open is the caller's input (400). */
async function countPages(file: string, opts: ReadOptions): Promise<number> {
  let out: string;
  try {
    out = (await tool(opts, 'pdfinfo', [file])).stdout.toString();
  } catch (err) {
    if (opts.signal.aborted) throw err;
    // pdfinfo killed by its limits is the service's failure, not a verdict on the file.
    if (err instanceof ToolError && err.serviceFault) throw failed('the PDF could not be opened.', err);
    const stderr = err instanceof ToolError ? err.stderr : '';
    if (/password/i.test(stderr)) throw new InputError('The file is password-protected; remove the password and retry.');
    throw new InputError('The file is not a readable PDF.', { cause: err });
  }
  const pages = Number(/^Pages:\s+(\d+)/m.exec(out)?.[1]);
  if (!Number.isInteger(pages) || pages < 1) throw new InputError('The document has no pages.');
  return pages;
}

/**
 * Text of the `wanted` pages (ascending), read in runs of consecutive pages so a sparse selection
 * ("1, 5000") reads only those pages; pdftotext ends each page with a form feed.
 */
async function textLayer(file: string, wanted: number[], opts: ReadOptions): Promise<Map<number, string>> {
  const texts = new Map<number, string>();
  for (let i = 0; i < wanted.length; ) {
    let j = i;
    while (j + 1 < wanted.length && wanted[j + 1] === wanted[j]! + 1) j++;
    const first = wanted[i]!;
    const last = wanted[j]!;
    try {
      const { stdout } = await tool(opts, 'pdftotext', ['-f', String(first), '-l', String(last), '-enc', 'UTF-8', file, '-']);
      stdout.toString('utf8').split('\f').slice(0, last - first + 1).forEach((t, k) => texts.set(first + k, t));
    } catch (err) {
      if (opts.signal.aborted || err instanceof ServiceError) throw err;
      throw failed('the text of the PDF could not be read.', err);
    }
    i = j + 1;
  }
  return texts;
}

/** Renders one page at `dpi` in grey and OCRs it. */
async function ocrPage(file: string, page: number, dpi: number, dir: string, opts: ReadOptions): Promise<string> {
  const base = join(dir, `page-${page}`);
  try {
    await tool(opts, 'pdftoppm', ['-r', String(dpi), '-gray', '-png', '-singlefile', '-f', String(page), '-l', String(page), file, base]);
  } catch (err) {
    if (opts.signal.aborted) throw err;
    throw failed(`page ${page} could not be rendered for OCR.`, err);
  }
  return ocr(`${base}.png`, opts);
}

/** Tesseract's text of one image file. */
async function ocr(image: string, opts: ReadOptions): Promise<string> {
  try {
    const { stdout } = await tool(opts, 'tesseract', [image, 'stdout', '-l', opts.ocrLanguages, '--psm', '3']);
    return tidy(stdout.toString('utf8'));
  } catch (err) {
    if (opts.signal.aborted) throw err;
    const stderr = err instanceof ToolError && !err.serviceFault ? err.stderr : '';
    if (/Error in pixRead|Image file .* cannot be read|Unsupported image/i.test(stderr)) throw new InputError('The image could not be read.');
    throw failed('OCR failed.', err);
  }
}
