/**
 * extract-image (issue 15): each image is admitted by its header (format and IMAGE_MAX_PIXELS,
 * issue 24), OCRed locally and downscaled (at most 1568 px a side, JPEG), then the vision model
 * gets the prompt, the OCR text and the images. 100 + 10 per image.
 */
import { join } from 'node:path';
import { MB, type RunContext, type Static } from '../../core/sdk.js';
import { EXTRACT_BASE_CREDITS, type ExtractImageFiles } from '../../core/catalogue.js';
import { answer } from './answer.js';
import { inputHeadFor, loadInput, readImageHeader, writeInputFile, type LoadedInput } from '../../core/sdk.js';
import { lane, report } from './lane.js';
import { modelImage, ocrImage } from './media.js';
import { withScratch } from '../../core/sdk.js';

type Input = Static<typeof ExtractImageFiles>;

/**
 * Reads every image at once into `dir`; the first failure stops the downloads still running, and
 * all have settled before this answers (the folder is removed right after a failure).
 */
async function loadAll(input: Input, ctx: RunContext<any, any>, max: number, dir: string): Promise<LoadedInput[]> {
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  let first: { err: unknown } | undefined;
  const settled = await Promise.allSettled(
    input.images.map((img, i) =>
      loadInput(ctx.engines, input.inputMethod, img, `images[${i}]`, max, signal, dir).catch((err: unknown) => {
        first ??= { err };
        stop.abort(err);
        throw err;
      }),
    ),
  );
  if (first) throw first.err;
  return settled.map((r) => (r as PromiseFulfilledResult<LoadedInput>).value);
}

/** Runs one extract-image call. */
export async function extractImages(input: Input, ctx: RunContext<any, any>) {
  const l = lane(ctx);
  const max = l.settings.imageMaxMb * MB;
  const read = await withScratch('extract-image', async (dir) => {
    // Images by URL are written into this folder as they arrive, not held here (issue 24 finding 6).
    const loaded = await loadAll(input, ctx, max, dir);
    // Every image is admitted by its header (format, pixels) before any tool decodes one of them,
    // read from its first bytes: a large body's images stay in files, off this thread (issue 24).
    const heads = await Promise.all(loaded.map((img) => inputHeadFor(img, (h) => !!readImageHeader(h))));
    const headers = heads.map((head, i) => ctx.engines.tools.admitImage(head, `images[${i}]`));
    return Promise.all(
      loaded.map(async (img, i) => {
        const file = join(dir, `in-${i}`);
        await writeInputFile(img, file);
        // Downscaling first also proves the file is an image (a 400 otherwise) before OCR runs.
        const jpeg = await modelImage(l.tools, file, headers[i]!, join(dir, `model-${i}.jpg`));
        return { jpeg, text: await ocrImage(l.tools, file, l.settings.ocrLanguages) };
      }),
    );
  });
  const material = read.map((r, i) => `=== Image ${i + 1}: OCR text ===\n${r.text || '(no text found)'}`).join('\n\n');
  const images = read.map((r, i) => ({ url: `data:image/jpeg;base64,${r.jpeg.toString('base64')}`, caption: `Image ${i + 1}:` }));
  const a = await answer(l.model, { prompt: input.prompt, material, kind: input.images.length > 1 ? 'images' : 'image', images, json: input.jsonMode === true }, l.settings);
  ctx.usage.add('images', read.length);
  report(l, a);
  return { results: a.results, prompt: input.prompt, imageCount: read.length, creditUsage: EXTRACT_BASE_CREDITS + 10 * read.length };
}
