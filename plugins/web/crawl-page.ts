/**
 * One page of a crawl, the same for the synchronous crawler (crawler.ts) and a crawl job's
 * steps (crawl-steps.ts): robots.txt and Crawl-delay of the page's origin, the guarded fetch,
 * then conversion, link finding and the path rules in a compute worker.
 */
import { fetchPage } from './fetch-page.js';
import { waitTurn, type OriginRules } from './robots.js';
import { normaliseUrl, onSite, type SiteScope } from './site-scope.js';
import type { WebContext } from './work.js';

/** How page content is returned. */
export type CrawlFormat = 'markdown' | 'text' | 'raw';

/** One crawled page as returned in `results`. */
export interface CrawlResult {
  url: string;
  status: number;
  content: string;
}

/** What a crawl keeps fixed across its pages. */
export interface CrawlEnv {
  scope: SiteScope;
  format: CrawlFormat;
  maxBytes: number;
  timeoutMs: number;
  /** When no new page may start (a synchronous crawl's budget); none for a job's items. */
  deadline?: number;
  /** The rules of an origin (read once per crawl, or shared by a job's items). */
  robotsFor(origin: string): Promise<OriginRules>;
}

/** A page fetched: where it ended up, its result when it is returned, and its in-scope links. */
export interface CrawledPage {
  /** The final URL, normalised under the crawl's query rule. */
  finalNorm: string;
  /** The final URL is on the crawl's site (a redirect may leave it). */
  onSite: boolean;
  /** Undefined when the page is outside the path rules or could not be converted. */
  result?: CrawlResult;
  /** Normalised in-scope links (only when `links` was asked). */
  links: string[];
}

/**
 * Crawls one page; undefined when robots.txt or the deadline leaves it out. The start page
 * (`start`) was checked against robots.txt before. Fetch failures are thrown.
 */
export async function crawlOne(ctx: WebContext, env: CrawlEnv, item: { url: string; start: boolean; links: boolean }): Promise<CrawledPage | undefined> {
  const stopped = () => (env.deadline !== undefined && Date.now() >= env.deadline) || ctx.signal.aborted;
  const rules = await env.robotsFor(new URL(item.url).origin);
  if (!item.start && (!rules.allows(item.url) || stopped())) return undefined;
  // Politeness: requests to one origin start at least its Crawl-delay apart.
  if (!(await waitTurn(rules, ctx.signal, env.deadline)) || stopped()) return undefined;
  const page = await fetchPage(ctx, { url: item.url, renderJs: false, timeoutMs: env.timeoutMs, maxBytes: env.maxBytes });
  const finalNorm = normaliseUrl(page.url, env.scope.ignoreQuery) ?? page.url;
  const hasRules = env.scope.include.length > 0 || env.scope.exclude.length > 0;
  let content: string | undefined = page.body;
  let links: string[] = [];
  let selfAllowed = true;
  if (page.kind === 'html' && (env.format !== 'raw' || item.links || hasRules)) {
    // Parsing, conversion and the user's path patterns run in a compute worker.
    const out = await ctx.state.pages.run('crawlPage', { html: page.body, url: page.url, format: env.format === 'raw' ? 'links only' : env.format, links: item.links, scope: env.scope }, { signal: ctx.signal });
    if (out.warning) ctx.log.warn({ url: page.url }, `crawl: ${out.warning}`);
    links = out.links;
    selfAllowed = out.selfAllowed;
    if (env.format !== 'raw') content = out.content;
  } else if (hasRules) {
    selfAllowed = (await ctx.state.pages.run('crawlPage', { html: '', url: page.url, format: 'links only', links: false, scope: env.scope }, { signal: ctx.signal })).selfAllowed;
  }
  return {
    finalNorm,
    onSite: onSite(finalNorm, env.scope),
    result: content !== undefined && selfAllowed ? { url: page.url, status: page.status, content } : undefined,
    links,
  };
}
