/**
 * `batch_scrape` on this machine (issue 25): each URL is one `scrape_page` call through
 * `ctx.call` (that capability's providers, checks and key policy; its base free inside this call,
 * whose own cost rule charges 10 credits per page scraped, and the OCR pages a scanned PDF needs at
 * doc_text's 5 each, issue 24), a few at a time. The synchronous endpoint
 * and a batch job's steps share {@link scrapeOne}, so an item is the same either way.
 */
import { ServiceError, type JobSteps } from '../../core/sdk.js';
import { BATCH_CREDITS_PER_PAGE, DOC_TEXT_OCR_PAGE_CREDITS, type BatchItemType, type BatchScrapeInput } from '../../core/catalogue.js';
import type { WebContext, WebState } from './work.js';

/** URLs of one synchronous batch scraped at once. */
export const BATCH_CONCURRENCY = 4;

/** Scrapes `url` with the batch's options: a completed item, or a failed one saying why. */
export async function scrapeOne(ctx: WebContext, input: BatchScrapeInput, url: string): Promise<BatchItemType> {
  const { urls: _urls, ...options } = input;
  try {
    const data = await ctx.call<BatchItemType['data']>('scrape_page', { ...options, url });
    return { url, status: 'completed', data };
  } catch (err) {
    // The batch's own cancellation is not one URL's failure.
    if (ctx.signal.aborted) throw err;
    if (err instanceof ServiceError) return { url, status: 'failed', error: { code: err.code, message: err.message } };
    ctx.log.warn({ err, url }, 'batch: scrape failed unexpectedly');
    return { url, status: 'failed', error: { code: 'INTERNAL', message: 'The page could not be scraped.' } };
  }
}

/** The synchronous batch: every URL, at most {@link BATCH_CONCURRENCY} at a time, results in order. */
export async function batchScrape(input: BatchScrapeInput, ctx: WebContext) {
  const results: BatchItemType[] = new Array(input.urls.length);
  let next = 0;
  const worker = async () => {
    while (next < input.urls.length && !ctx.signal.aborted) {
      const i = next++;
      results[i] = await scrapeOne(ctx, input, input.urls[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, input.urls.length) }, worker));
  ctx.signal.throwIfAborted();
  const completed = results.filter((r) => r.status === 'completed').length;
  ctx.usage.add('pages', completed);
  // A scanned PDF's pages were read by doc_text's OCR inside its scrape, and charged with this
  // call at that lane's price: the usage lists them beside this call's own pages.
  const ocrPages = ctx.usage.units.ocr_pages ?? 0;
  return { results, completed, failed: results.length - completed, creditUsage: completed * BATCH_CREDITS_PER_PAGE + ocrPages * DOC_TEXT_OCR_PAGE_CREDITS };
}

/** A batch job: one item per URL in the order given (keyed by position, so a URL listed twice is scraped twice). */
export const batchSteps: JobSteps<BatchScrapeInput, WebState> = {
  limit: (input) => input.urls.length,
  knownTotal: true,
  seed: async (input) => input.urls.map((url, i) => ({ key: String(i).padStart(4, '0'), data: { url } })),
  async run(input, item, ctx) {
    const url = String(item.data?.url ?? input.urls[Number(item.key)]);
    // The page's own price is held first, so the OCR a scanned PDF needs is held on top of it and
    // a key that cannot cover both is refused before any page is read.
    await ctx.reserveFor({ pages: 1 });
    const result = await scrapeOne(ctx, input, url);
    return result.status === 'completed' ? { result, units: { pages: 1 } } : { result, failed: true };
  },
};
