/**
 * The service's own crawler (spec §4.9, §4.10; issue 4 "crawl_site"): breadth-first from the
 * start URL, same site only, robots.txt honoured (including Crawl-delay), every URL normalised so
 * no page is fetched twice, bounded by `limit` pages and `depth` link hops, and by a deadline after
 * which the pages gathered so far are returned.
 */
import robotsParserModule from 'robots-parser';
import { InputError, ServiceError, type RunContext } from '../../core/sdk.js';
import { fetchPage, type FetchedPage } from './fetch-page.js';
import { ParsedPage, toMarkdown, toText } from './page-content.js';

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

/** The robots.txt product token this crawler obeys (and sends in its User-Agent). */
export const ROBOTS_AGENT = 'ContentIntelligenceBot';
const SKIP_EXTENSIONS = /\.(?:jpe?g|png|gif|webp|svg|ico|bmp|css|js|mjs|json|xml|zip|gz|tgz|rar|7z|mp3|mp4|m4a|wav|avi|mov|webm|woff2?|ttf|eot|exe|dmg|iso|apk)$/i;
// robots-parser is CommonJS with a default-export typing; under NodeNext the function is the module.
type RobotsParser = (url: string, text: string) => {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
};
const robotsParser = ((robotsParserModule as unknown as { default?: RobotsParser }).default ?? robotsParserModule) as unknown as RobotsParser;
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

/** Reads robots.txt; a missing or unreadable file allows everything (RFC 9309 §2.3.1.3). */
async function loadRobots(ctx: RunContext<unknown>, start: URL, timeoutMs: number) {
  const robotsUrl = `${start.origin}/robots.txt`;
  let text = '';
  try {
    const res = await ctx.engines.http.request({ url: robotsUrl, signal: ctx.signal, timeoutMs: Math.min(timeoutMs, 10_000), maxBytes: 512 * 1024 });
    if (res.status >= 200 && res.status < 300) text = res.text();
  } catch (err) {
    // A guard refusal of robots.txt means the start page is refused too; report that instead.
    if (err instanceof InputError) throw err;
    ctx.log.debug({ err, robotsUrl }, 'robots.txt unavailable; crawling without it');
  }
  return robotsParser(robotsUrl, text);
}

/** Page content in the requested format. */
function render(page: FetchedPage, format: CrawlFormat, parsed?: ParsedPage): string {
  if (page.kind !== 'html') return page.body;
  if (format === 'raw') return page.body;
  const html = (parsed ?? new ParsedPage(page.body, page.url)).bodyHtml();
  return format === 'text' ? toText(html) : toMarkdown(html);
}

/** Crawls the site; returns pages in breadth-first discovery order. */
export async function crawlSite(ctx: RunContext<unknown>, opts: CrawlOptions): Promise<CrawlResult[]> {
  const startNorm = normaliseUrl(opts.url);
  if (!startNorm) throw new InputError(`Invalid URL: ${opts.url.slice(0, 200)}`);
  const start = new URL(startNorm);
  const site = siteOf(startNorm);
  const robots = await loadRobots(ctx, start, opts.timeoutMs);
  // robots.txt speaks for its own origin: a same-site link on another origin (`www.`, the other
  // scheme, another port) is checked against that origin's file, read once.
  const robotsByOrigin = new Map([[start.origin, Promise.resolve(robots)]]);
  const robotsFor = (u: URL) => {
    let r = robotsByOrigin.get(u.origin);
    if (!r) {
      // A guard refusal here only means the pages of that origin will be refused when fetched.
      r = loadRobots(ctx, u, opts.timeoutMs).catch(() => robotsParser(`${u.origin}/robots.txt`, ''));
      robotsByOrigin.set(u.origin, r);
    }
    return r;
  };
  if (robots.isAllowed(startNorm, ROBOTS_AGENT) === false) {
    throw new InputError(`Crawling ${startNorm} is disallowed by the site's robots.txt.`);
  }
  const delaySec = Number(robots.getCrawlDelay(ROBOTS_AGENT) ?? 0);
  const delayMs = Number.isFinite(delaySec) && delaySec > 0 ? Math.min(delaySec * 1000, opts.maxDelayMs) : 0;
  // Politeness: with a Crawl-delay, one request at a time, spaced by it.
  const concurrency = delayMs > 0 ? 1 : 3;

  const seen = new Set<string>([startNorm]);
  const queue: { url: string; depth: number; order: number }[] = [{ url: startNorm, depth: 0, order: 0 }];
  let nextOrder = 1;
  const results: (CrawlResult & { order: number })[] = [];
  let inflight = 0;
  let lastStart = 0;
  let startError: unknown;

  // Origins of the site links may lead to (`www.`, the other scheme, other ports): bounded, so a
  // page linking to hundreds of ports cannot make the crawl fetch hundreds of robots.txt files.
  const origins = new Set<string>([start.origin]);

  const visit = async (item: { url: string; depth: number; order: number }) => {
    // robots.txt of another origin is read when one of its pages is about to be fetched (never
    // for links that the limit or the deadline leave unvisited).
    if (item.order !== 0) {
      const robotsOk = (await robotsFor(new URL(item.url))).isAllowed(item.url, ROBOTS_AGENT) !== false;
      if (!robotsOk || Date.now() >= opts.deadline || ctx.signal.aborted) return;
    }
    if (delayMs > 0) {
      const wait = lastStart + delayMs - Date.now();
      if (lastStart > 0 && wait > 0) await new Promise((r) => setTimeout(r, wait));
      lastStart = Date.now();
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
    const parsed = page.kind === 'html' ? new ParsedPage(page.body, page.url) : undefined;
    if (parsed && item.depth < opts.depth) {
      for (const link of parsed.links()) {
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
    results.push({ url: page.url, status: page.status, content: render(page, opts.format, parsed), order: item.order });
  };

  await new Promise<void>((resolve) => {
    const pump = () => {
      while (inflight < concurrency && queue.length > 0 && results.length + inflight < opts.limit && Date.now() < opts.deadline && !ctx.signal.aborted) {
        const item = queue.shift()!;
        inflight++;
        void visit(item).finally(() => {
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
