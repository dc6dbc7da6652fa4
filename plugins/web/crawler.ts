/**
 * The service's own crawler (spec §4.9, §4.10; issue 4 "crawl_site"): breadth-first from the
 * start URL, same site only, robots.txt honoured (including Crawl-delay), every URL normalised so
 * no page is fetched twice, bounded by `limit` pages and `depth` link hops, and by a deadline after
 * which the pages gathered so far are returned.
 */
import { InputError, ServiceError, UpstreamError } from '../../core/sdk.js';
import { fetchPage, type FetchedPage } from './fetch-page.js';
import type { WebContext } from './work.js';
import { loadRobots, refusedOrigin, type OriginRules } from './robots.js';

/** How page content is returned. */
export type CrawlFormat = 'markdown' | 'text' | 'raw';

/** One crawled page as returned in `results`. */
export interface CrawlResult {
  url: string;
  status: number;
  content: string;
}

/** Crawl parameters after defaults. */
export interface CrawlOptions {
  url: string;
  limit: number;
  depth: number;
  format: CrawlFormat;
  maxBytes: number;
  timeoutMs: number;
  /** Longest Crawl-delay honoured as written; longer ones are capped to this. */
  maxDelayMs: number;
  /** When the crawl stops starting new pages and returns what it has. */
  deadline: number;
}

const SKIP_EXTENSIONS = /\.(?:jpe?g|png|gif|webp|svg|ico|bmp|css|js|mjs|json|xml|zip|gz|tgz|rar|7z|mp3|mp4|m4a|wav|avi|mov|webm|woff2?|ttf|eot|exe|dmg|iso|apk)$/i;
const TRACKING = /^(utm_[a-z]+|gclid|fbclid|mc_cid|mc_eid)$/i;

/**
 * The form under which a URL is remembered: lower-case scheme and host, no default port, no
 * fragment, no tracking parameters, sorted query, no trailing slash except for the root.
 */
export function normaliseUrl(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  u.hash = '';
  u.username = '';
  u.password = '';
  const params = [...u.searchParams].filter(([k]) => !TRACKING.test(k)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  u.search = params.length ? new URLSearchParams(params).toString() : '';
  if (u.pathname.length > 1 && u.pathname.endsWith('/')) u.pathname = u.pathname.replace(/\/+$/, '') || '/';
  return u.href;
}

/** Distinct origins (scheme, host, port) of one site a crawl follows links to. */
const MAX_ORIGINS = 8;

/** Same site: the same host, with or without a leading `www.` (scheme may differ). */
export function siteOf(url: string): string {
  return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Crawls the site; returns pages in breadth-first discovery order. */
export async function crawlSite(ctx: WebContext, opts: CrawlOptions): Promise<CrawlResult[]> {
  const startNorm = normaliseUrl(opts.url);
  if (!startNorm) throw new InputError(`Invalid URL: ${opts.url.slice(0, 200)}`);
  const start = new URL(startNorm);
  const site = siteOf(startNorm);
  const robotsOpts = { timeoutMs: opts.timeoutMs, maxDelayMs: opts.maxDelayMs };
  const robots = await loadRobots(ctx, start.origin, robotsOpts);
  // An unreadable robots.txt forbids the whole origin (RFC 9309 §2.3.1.4): say why, charge nothing.
  if (robots.unreachable) {
    throw robots.error instanceof ServiceError ? robots.error : new UpstreamError(`Failed to retrieve ${start.origin}/robots.txt; the site cannot be crawled without it.`, { cause: robots.error });
  }
  if (!robots.allows(startNorm)) throw new InputError(`Crawling ${startNorm} is disallowed by the site's robots.txt.`);
  // robots.txt speaks for its own origin: a same-site link on another origin (`www.`, the other
  // scheme, another port) is checked against that origin's file, read once, and paced by its own
  // Crawl-delay.
  const robotsByOrigin = new Map<string, Promise<OriginRules>>([[start.origin, Promise.resolve(robots)]]);
  const robotsFor = (origin: string) => {
    let r = robotsByOrigin.get(origin);
    if (!r) {
      // A guard refusal here only means the pages of that origin will not be fetched.
      r = loadRobots(ctx, origin, robotsOpts).catch((err: unknown) => refusedOrigin(origin, err));
      robotsByOrigin.set(origin, r);
    }
    return r;
  };
  const concurrency = 3;

  const seen = new Set<string>([startNorm]);
  const queue: { url: string; depth: number; order: number }[] = [{ url: startNorm, depth: 0, order: 0 }];
  let nextOrder = 1;
  const results: (CrawlResult & { order: number })[] = [];
  let inflight = 0;
  let startError: unknown;
  const stopped = () => Date.now() >= opts.deadline || ctx.signal.aborted;

  // Origins of the site links may lead to (`www.`, the other scheme, other ports): bounded, so a
  // page linking to hundreds of ports cannot make the crawl fetch hundreds of robots.txt files.
  const origins = new Set<string>([start.origin]);

  const visit = async (item: { url: string; depth: number; order: number }) => {
    // robots.txt of another origin is read when one of its pages is about to be fetched (never
    // for links that the limit or the deadline leave unvisited).
    const rules = await robotsFor(new URL(item.url).origin);
    if (item.order !== 0 && (!rules.allows(item.url) || stopped())) return;
    if (rules.delayMs > 0) {
      // Politeness: requests to one origin start at least its Crawl-delay apart.
      const at = rules.reserve();
      if (at >= opts.deadline) return;
      await sleep(at - Date.now(), ctx.signal);
      if (stopped()) return;
    }
    let page: FetchedPage;
    try {
      page = await fetchPage(ctx, { url: item.url, renderJs: false, timeoutMs: opts.timeoutMs, maxBytes: opts.maxBytes });
    } catch (err) {
      if (item.order === 0) startError = err;
      else ctx.log.debug({ err, url: item.url }, 'crawl: page skipped');
      return;
    }
    const finalNorm = normaliseUrl(page.url) ?? page.url;
    // A redirect may lead off the site or onto a page already seen: neither is returned twice.
    if (siteOf(finalNorm) !== site && item.order !== 0) return;
    if (finalNorm !== item.url) {
      if (seen.has(finalNorm) && item.order !== 0) return;
      seen.add(finalNorm);
    }
    if (results.length >= opts.limit) return;
    const deeper = item.depth < opts.depth;
    let content: string | undefined = page.body;
    let links: string[] = [];
    if (page.kind === 'html' && (opts.format !== 'raw' || deeper)) {
      // Parsing and conversion run in a compute worker: a large page must not stall the service.
      const out = await ctx.state.pages.run('crawlPage', { html: page.body, url: page.url, format: opts.format === 'raw' ? 'links only' : opts.format, links: deeper }, { signal: ctx.signal });
      if (out.warning) ctx.log.warn({ url: page.url }, `crawl: ${out.warning}`);
      links = out.links;
      if (opts.format !== 'raw') content = out.content;
    }
    if (deeper) {
      for (const link of links) {
        const norm = normaliseUrl(link);
        if (!norm || seen.has(norm)) continue;
        const u = new URL(norm);
        if (siteOf(norm) !== site || SKIP_EXTENSIONS.test(u.pathname)) continue;
        if (!origins.has(u.origin)) {
          if (origins.size >= MAX_ORIGINS) continue;
          origins.add(u.origin);
        }
        seen.add(norm);
        queue.push({ url: norm, depth: item.depth + 1, order: nextOrder++ });
      }
    }
    if (content !== undefined) results.push({ url: page.url, status: page.status, content, order: item.order });
  };

  await new Promise<void>((resolve) => {
    const pump = () => {
      while (inflight < concurrency && queue.length > 0 && results.length + inflight < opts.limit && !stopped()) {
        const item = queue.shift()!;
        inflight++;
        // A page that fails in an unforeseen way is left out; it must never take the process down.
        void visit(item)
          .catch((err: unknown) => {
            if (item.order === 0) startError ??= err;
            ctx.log.warn({ err, url: item.url }, 'crawl: page failed; left out');
          })
          .finally(() => {
            inflight--;
            pump();
          });
      }
      if (inflight === 0) resolve();
    };
    pump();
  });

  if (results.length === 0 && startError) throw startError instanceof ServiceError ? startError : new InputError(`Failed to crawl ${startNorm}.`, { cause: startError });
  return results.sort((a, b) => a.order - b.order).map(({ order: _o, ...r }) => r);
}
