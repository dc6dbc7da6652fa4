/** Calls into page-work.ts through the compute engine (worker threads), never on the main thread. */
import type { RunContext } from '../../core/sdk.js';
import type { FetchedPage } from './fetch-page.js';
import type { PageData } from './page-work.js';

const PAGE_WORK = new URL('./page-work.js', import.meta.url);

/** Runs export `fn` of page-work.ts on `arg` in a compute worker, bounded by the call's signal. */
export function work<T>(ctx: RunContext<unknown>, fn: string, arg: unknown): Promise<T> {
  return ctx.engines.compute.run<T>(PAGE_WORK, fn, arg, { signal: ctx.signal });
}

/** What a worker needs of a fetched HTML page. */
export function pageData(page: FetchedPage): PageData {
  return { html: page.body, url: page.url, status: page.status, contentType: page.contentType, contentLanguage: page.contentLanguage };
}
