/**
 * The service's own crawler (spec §4.9, §4.10; issues 4 and 25 "crawl_site"): breadth-first from
 * the start URL and the site's sitemap URLs, same site only (subdomains when allowed), robots.txt
 * honoured (including Crawl-delay), the user's path rules applied, every URL normalised so no
 * page is fetched twice, bounded by `limit` pages and `depth` link hops, and by a deadline after
 * which the pages gathered so far are returned. Each page is crawl-page.ts's, which a crawl job's
 * steps run too.
 */
import { InputError, ServiceError, UpstreamError } from '../../core/sdk.js';
import type { CrawlRequest } from '../../core/catalogue.js';
import { crawlOne, type CrawlEnv, type CrawlResult } from './crawl-page.js';
import type { WebContext } from './work.js';
import { loadRobots, refusedOrigin, type OriginRules } from './robots.js';
import { normaliseUrl, siteOf, type SiteScope } from './site-scope.js';
import { sitemapPages } from './sitemaps.js';

export { normaliseUrl, siteOf } from './site-scope.js';
export type { CrawlFormat, CrawlResult } from './crawl-page.js';

/** Crawl parameters after defaults, with the plugin's limits. */
export interface CrawlOptions extends CrawlRequest {
  maxBytes: number;
  timeoutMs: number;
  /** Longest Crawl-delay honoured as written; longer ones are capped to this. */
  maxDelayMs: number;
  /** When the crawl stops starting new pages and returns what it has. */
  deadline: number;
}

/** Distinct origins (scheme, host, port) of one site a crawl follows links to. */
const MAX_ORIGINS = 8;
/** Most sitemap files one crawl reads. */
export const CRAWL_SITEMAP_FILES = 20;

/** The scope of a crawl: its site and the user's rules. */
export function crawlScope(startNorm: string, d: Pick<CrawlRequest, 'allowSubdomains' | 'ignoreQueryParameters' | 'includePaths' | 'excludePaths'>): SiteScope {
  return { site: siteOf(startNorm), subdomains: d.allowSubdomains, ignoreQuery: d.ignoreQueryParameters, include: d.includePaths, exclude: d.excludePaths };
}

/** The start URL normalised, or a 400. */
export function crawlStart(url: string, ignoreQuery: boolean): string {
  const startNorm = normaliseUrl(url, ignoreQuery);
  if (!startNorm) throw new InputError(`Invalid URL: ${url.slice(0, 200)}`);
  return startNorm;
}

/**
 * The start origin's rules, or the error that stops the crawl: an unreadable robots.txt forbids
 * the whole origin (RFC 9309 §2.3.1.4), a disallowed start URL is the caller's 400.
 */
export function checkStart(robots: OriginRules, startNorm: string): void {
  if (robots.unreachable) {
    throw robots.error instanceof ServiceError ? robots.error : new UpstreamError(`Failed to retrieve ${robots.origin}/robots.txt; the site cannot be crawled without it.`, { cause: robots.error });
  }
  if (!robots.allows(startNorm)) throw new InputError(`Crawling ${startNorm} is disallowed by the site's robots.txt.`);
}

/** Crawls the site; returns pages in breadth-first discovery order. */
export async function crawlSite(ctx: WebContext, opts: CrawlOptions): Promise<CrawlResult[]> {
  const startNorm = crawlStart(opts.url, opts.ignoreQueryParameters);
  const start = new URL(startNorm);
  const robotsOpts = { timeoutMs: opts.timeoutMs, maxDelayMs: opts.maxDelayMs };
  const robots = await loadRobots(ctx, start.origin, robotsOpts);
  checkStart(robots, startNorm);
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
  const scope = crawlScope(startNorm, opts);
  const env: CrawlEnv = { scope, format: opts.format, maxBytes: opts.maxBytes, timeoutMs: opts.timeoutMs, deadline: opts.deadline, robotsFor };
  const concurrency = 3;
  const followLinks = opts.sitemap !== 'only';

  const seen = new Set<string>();
  const queue: { url: string; depth: number; order: number }[] = [];
  let nextOrder = 0;
  // Origins of the site links may lead to (`www.`, the other scheme, other ports, subdomains):
  // bounded, so a page linking to hundreds of ports cannot make the crawl fetch hundreds of
  // robots.txt files.
  const origins = new Set<string>([start.origin]);
  const enqueue = (url: string, depth: number) => {
    if (seen.has(url)) return;
    const origin = new URL(url).origin;
    if (!origins.has(origin)) {
      if (origins.size >= MAX_ORIGINS) return;
      origins.add(origin);
    }
    seen.add(url);
    queue.push({ url, depth, order: nextOrder++ });
  };
  if (followLinks) enqueue(startNorm, 0);
  if (opts.sitemap !== 'skip') {
    // Sitemap URLs come after the start page and count as one hop from it.
    const listed = await sitemapPages(ctx, { rules: robots, scope, max: opts.limit * 2, maxFiles: CRAWL_SITEMAP_FILES, maxBytes: opts.maxBytes, timeoutMs: opts.timeoutMs, deadline: opts.deadline });
    for (const url of listed) enqueue(url, 1);
  }
  const startOrder = followLinks ? 0 : -1;

  const results: (CrawlResult & { order: number })[] = [];
  let inflight = 0;
  let startError: unknown;
  const stopped = () => Date.now() >= opts.deadline || ctx.signal.aborted;

  const visit = async (item: { url: string; depth: number; order: number }) => {
    const isStart = item.order === startOrder;
    let page;
    try {
      page = await crawlOne(ctx, env, { url: item.url, start: isStart, links: followLinks && item.depth < opts.depth });
    } catch (err) {
      if (isStart) startError = err;
      else ctx.log.debug({ err, url: item.url }, 'crawl: page skipped');
      return;
    }
    if (!page) return;
    // A redirect may lead off the site or onto a page already seen: neither is returned twice.
    if (!page.onSite && !isStart) return;
    if (page.finalNorm !== item.url) {
      if (seen.has(page.finalNorm) && !isStart) return;
      seen.add(page.finalNorm);
    }
    if (results.length >= opts.limit) return;
    for (const link of page.links) enqueue(link, item.depth + 1);
    if (page.result) results.push({ ...page.result, order: item.order });
  };

  await new Promise<void>((resolve) => {
    const pump = () => {
      while (inflight < concurrency && queue.length > 0 && results.length + inflight < opts.limit && !stopped()) {
        const item = queue.shift()!;
        inflight++;
        // A page that fails in an unforeseen way is left out; it must never take the process down.
        void visit(item)
          .catch((err: unknown) => {
            if (item.order === startOrder) startError ??= err;
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
