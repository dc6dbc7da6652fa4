/**
 * Contexts kept warm per API key between its own calls (issue 27: CPU per page). Starting a
 * renderer for a fresh browser context costs more CPU than loading the page itself; a key's next
 * plain render reuses the context and page its previous one left, once everything that call
 * could leave behind is gone: the document (the page is sent to about:blank, so its scripts,
 * timers and workers end) and the tab's history, the job's listeners and request interception,
 * the context's cookies, and the storage of every origin the page or one of its iframes had a
 * document of (local and session storage, IndexedDB, caches, service workers; see
 * byte-meter.ts). The HTTP cache has nothing to clear: the pool's pages never answer from it
 * (pool.ts). A kept context belongs to one key and is never handed to another; at most `max` are kept (the least recently used goes first), each for `idleMs`.
 * What is not reset is never kept: the pool keeps only jobs that set nothing on the page
 * (no headers, cookies, viewport, user agent, locale, blocked URLs, screenshot or screenshot
 * action, or proxy), that succeeded, and whose page opened no other page.
 *
 * The reset costs ~30 ms of CPU per call, nearly all of it the about:blank navigation (issue 27,
 * bench/scrape-reset.ts and bench/scrape-reset-trace.ts): a document's fixed lifecycle, spread
 * thin over the browser's navigation and IPC, the renderer's commit (two V8 contexts, the old
 * document's teardown) and the blank frame's paint, with no one step to cut. Measured and no
 * cheaper: the navigation sent as plain CDP without puppeteer's watcher, the new-document
 * scripts taken off for the blank document, a new tab in the same context instead (a new
 * renderer, several times the cost), and the page hidden during the reset. Painting no frame
 * at all (the headless shell's begin-frame control) is cheaper but costs pages their idle
 * callbacks, transitions and lazy images (bench/scrape-frames.ts). The document must end before the storage is cleared (its
 * unload handlers, timers and workers could write again), and before the next call's navigation
 * rather than with it (they would act between the clearing and that call's commit).
 */
import type { ByteMeter } from './byte-meter.js';
import type { FreshPage } from './fresh-page.js';

/** The page events render jobs listen to; a kept page starts its next job without any. */
const JOB_EVENTS = ['request', 'response', 'requestfinished', 'requestfailed', 'framenavigated', 'dialog', 'popup', 'console'] as const;
/**
 * What a reset clears of each origin: every kind of storage a page can write and read back, i.e.
 * CDP's `all` without `shader_cache` (Chromium's compiled GPU programs, which no page can read;
 * clearing it cost ~8 ms of browser CPU per call, more than the rest of the reset: issue 27) and
 * without `cookies` (the whole context's are cleared below).
 */
const PAGE_STORAGE_TYPES = ['local_storage', 'indexeddb', 'cache_storage', 'service_workers', 'file_systems', 'websql', 'storage_buckets', 'shared_storage', 'interest_groups', 'other'].join(',');
/** Longest a reset may take before the context is closed instead, in ms. */
const RESET_TIMEOUT_MS = 5000;

interface Kept<I> {
  ready: Promise<FreshPage | undefined>;
  inst: I;
  timer: NodeJS.Timeout;
}

/** Per-key warm contexts of one pool; `I` is the pool's browser instance (contexts never outlive it). */
export class WarmContexts<I> {
  /** In insertion order: the first is the least recently kept. */
  private readonly kept = new Map<string, Kept<I>>();

  constructor(
    private readonly max: number,
    private readonly idleMs: number,
  ) {}

  /** Kept contexts, ready or being reset. */
  get size(): number {
    return this.kept.size;
  }

  /** `owner`'s kept page on `inst`, once reset (undefined when there is none or its reset failed). */
  async take(owner: string, inst: I): Promise<FreshPage | undefined> {
    const k = this.kept.get(owner);
    if (!k) return undefined;
    this.kept.delete(owner);
    clearTimeout(k.timer);
    const fresh = await k.ready;
    if (!fresh) return undefined;
    if (k.inst !== inst || fresh.page.isClosed()) {
      void fresh.context.close().catch(() => undefined);
      return undefined;
    }
    return fresh;
  }

  /**
   * Resets a finished job's page for `owner`'s next call and keeps it; closes it instead when
   * the reset fails, when `owner` already has one kept, or when it is evicted.
   */
  keep(owner: string, fresh: FreshPage, inst: I): void {
    if (this.kept.has(owner)) return void fresh.context.close().catch(() => undefined);
    const ready = resetPage(fresh).then(
      (ok) => {
        if (ok) return fresh;
        void fresh.context.close().catch(() => undefined);
        return undefined;
      },
      () => {
        void fresh.context.close().catch(() => undefined);
        return undefined;
      },
    );
    const timer = setTimeout(() => this.drop(owner), this.idleMs);
    timer.unref();
    this.kept.set(owner, { ready, inst, timer });
    while (this.kept.size > this.max) this.drop(this.kept.keys().next().value!);
  }

  /** Closes the contexts kept on `inst` (it is being retired or crashed). */
  dropInstance(inst: I): void {
    for (const [owner, k] of this.kept) if (k.inst === inst) this.drop(owner);
  }

  /** Closes every kept context. */
  clear(): void {
    for (const owner of [...this.kept.keys()]) this.drop(owner);
  }

  private drop(owner: string): void {
    const k = this.kept.get(owner);
    if (!k) return;
    this.kept.delete(owner);
    clearTimeout(k.timer);
    void k.ready.then((fresh) => fresh?.context.close().catch(() => undefined));
  }
}

/**
 * Once the job's document has ended: the tab's history, the storage of every origin it had a
 * document of, and its context's cookies. Exported for bench/scrape-reset*.ts, which time it apart.
 */
export async function clearWhatTheJobLeft(meter: ByteMeter): Promise<void> {
  const session = meter.session;
  await Promise.all([
    // The tab's history would tell the next page where the previous one went.
    session.send('Page.resetNavigationHistory'),
    ...[...meter.origins].map((origin) => session.send('Storage.clearDataForOrigin', { origin, storageTypes: PAGE_STORAGE_TYPES })),
    // Scoped to the page's own browser context.
    session.send('Network.clearBrowserCookies'),
  ]);
  meter.reset();
}

/** Clears what a job left on its page and context (see the module comment); false when the page cannot be kept. */
async function resetPage(fresh: FreshPage): Promise<boolean> {
  const { page, context, meter } = fresh;
  if (page.isClosed()) return false;
  for (const event of JOB_EVENTS) page.removeAllListeners(event);
  // A popup or another tab the page opened would keep running with the previous call's state.
  if ((await context.pages()).length !== 1) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), RESET_TIMEOUT_MS);
    timer.unref();
  });
  const work = (async () => {
    await page.setRequestInterception(false);
    await page.goto('about:blank', { timeout: RESET_TIMEOUT_MS });
    await clearWhatTheJobLeft(meter);
    return true;
  })();
  work.catch(() => undefined);
  // Cleared once settled: otherwise every kept page left a 5 s timer behind to wake the process for nothing.
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
