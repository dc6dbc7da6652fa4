/**
 * merge-pdfs (spec §4.6): read every input, merge in order with pdf-lib, optionally rewrite as
 * PDF/A with ghostscript, then write the Unicode metadata and XMP last (ghostscript drops them).
 * With `pdfua` the inputs' structure trees are merged (inputs without one get page-level tags),
 * and the output gets a title and a language; ghostscript strips tags, so with both `pdfa` and
 * `pdfua` the output is PDF/A, with title and language but no PDF/UA claim (README: PDF/UA).
 */
import { join } from 'node:path';
import { PayloadTooLargeError, ServiceError, OperationFailedError, fromBase64, inputSize, sizeText, tooLarge, withScratch, writeInputFile, type Engines, type UsageRecorder } from '../../core/sdk.js';
import { downloadTo } from './inputs.js';
import { storePdf, type Limits } from './store.js';

/** Input of one merge, as validated by the capability schema. */
export interface MergeRequest {
  inputMethod: 'url' | 'base64';
  files: string[];
  metadata?: { Title?: string; Author?: string; Subject?: string; Keywords?: string };
  pdfa?: 'PDF/A-1b' | 'PDF/A-2b' | 'PDF/A-3b';
  pdfua?: boolean;
}

const PARTS = { 'PDF/A-1b': 1, 'PDF/A-2b': 2, 'PDF/A-3b': 3 } as const;

/**
 * Writes every input to a file in `dir`, a few at a time, keeping their order; the first failure
 * cancels the other downloads. Sizes are checked first, and nothing is read into this thread's
 * memory (issue 24): a URL is streamed to its file, a large body's decoded field copied file to
 * file, and the PDF thread reads the files itself.
 */
async function writeAll(input: MergeRequest, ctx: { engines: Engines; signal: AbortSignal }, limits: Limits, dir: string): Promise<{ path: string }[]> {
  const out: { path: string }[] = new Array(input.files.length);
  const failed = new AbortController();
  const signal = AbortSignal.any([ctx.signal, failed.signal]);
  let total = 0;
  let next = 0;
  const count = (label: string, size: number) => {
    total += size;
    if (size > limits.maxFileBytes) throw tooLarge(label, limits.maxFileBytes);
    if (total > limits.maxMergeBytes) throw new PayloadTooLargeError(`The files together are larger than the ${sizeText(limits.maxMergeBytes)} limit.`);
  };
  const worker = async () => {
    while (next < input.files.length && !signal.aborted) {
      const i = next++;
      const label = `files[${i}]`;
      const path = join(dir, `${i}.pdf`);
      if (input.inputMethod === 'url') {
        count(label, (await downloadTo(ctx.engines, input.files[i]!, label, limits.maxFileBytes, signal, path)).bytes);
      } else {
        const raw = fromBase64(input.files[i]!, label, limits.maxFileBytes);
        // Sizes first: a large body's file is refused before it is copied.
        count(label, inputSize(raw));
        await writeInputFile(raw, path);
      }
      out[i] = { path };
    }
  };
  // Promise.all settles with the first error; aborting right then stops the downloads still running.
  const guarded = () => worker().catch((err: unknown) => {
    failed.abort(err);
    throw err;
  });
  await Promise.all(Array.from({ length: Math.min(4, input.files.length) }, guarded));
  return out;
}

/** Runs one merge and returns the download URL. */
export async function mergePdfs(
  input: MergeRequest,
  ctx: { engines: Engines; signal: AbortSignal; caller?: string; usage: UsageRecorder; log: { info(o: object, m?: string): void } },
  limits: Limits,
): Promise<{ url: string }> {
  const part = input.pdfa ? PARTS[input.pdfa] : undefined;
  const pdfua = input.pdfua === true;
  // Parsed and merged in a PDF thread, in turns across keys; a hang-up stops it. Its tools
  // (qpdf, ghostscript) run on this instance's tool engine, and a hang-up kills them too.
  const run = { signal: ctx.signal, owner: ctx.caller, tools: ctx.engines.tools };
  // The inputs' files live until the thread has merged them.
  const { files, merged } = await withScratch('merge-pdfs', async (dir) => {
    const files = await writeAll(input, ctx, limits, dir);
    try {
      return { files, merged: await ctx.engines.pdf.merge(files, { keepStructure: pdfua && !part, ...run }) };
    } catch (err) {
      throw unexpected(err);
    }
  });
  try {
    let pdf = merged.pdf;
    if (part) pdf = await ctx.engines.pdf.toPdfA(pdf, part, run);
    // PDF/UA needs a title: the caller's, else the first input's (finalize falls back to a generic one).
    const metadata = pdfua && !input.metadata?.Title && merged.title ? { ...input.metadata, Title: merged.title } : input.metadata;
    if (metadata || part || pdfua) pdf = await ctx.engines.pdf.finalize(pdf, { metadata, pdfa: part, pdfua, lang: merged.lang, ...run });
    ctx.log.info({ files: files.length, pages: merged.pages, tagged: merged.tagged, coarse: merged.coarse, pdfa: part ?? null, bytes: pdf.byteLength }, 'merged PDFs');
    return await storePdf(ctx, pdf, limits, 'merge PDFs');
  } catch (err) {
    throw unexpected(err);
  }
}

/** A failure of ours without a catalogue error of its own: the merge's 500. */
function unexpected(err: unknown): unknown {
  if (err instanceof ServiceError) return err;
  return new OperationFailedError('Failed to merge PDFs: an unexpected error occurred.', { cause: err });
}
