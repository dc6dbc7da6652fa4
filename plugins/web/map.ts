/**
 * `map_site` on this machine (issue 25): the site's sitemap URLs (robots.txt `Sitemap:` lines,
 * `/sitemap.xml`, indexes, gzipped files) and the links of its start page, within the path
 * rules and robots.txt, without fetching the pages themselves.
 */
import { mapDefaults, type MapSiteInput } from '../../core/catalogue.js';
import { checkStart, crawlStart } from './crawler.js';
import { fetchPage, limitsFrom } from './fetch-page.js';
import { loadRobots, refusedOrigin, waitTurn, type OriginRules } from './robots.js';
import { siteOf, type SiteScope } from './site-scope.js';
import { sitemapPages } from './sitemaps.js';
import type { WebContext } from './work.js';

/** Most sitemap files one map reads. */
const MAP_SITEMAP_FILES = 50;
/** Time a map spends reading sitemaps before it answers with what it has, in ms (within the endpoint's 120 s). */
const MAP_SITEMAP_BUDGET_MS = 60_000;
/** Most origins (other than the start's) whose robots.txt one map reads to check its URLs. */
const MAP_ORIGINS = 8;

/** One link of the map. */
interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

/** Maps the site; the links in the order found (sitemaps first), filtered and cut to `limit`. */
export async function mapSite(input: MapSiteInput, ctx: WebContext): Promise<{ links: MapLink[]; count: number }> {
  const d = mapDefaults(input);
  const { maxBytes, timeoutMs } = limitsFrom(ctx.config);
  const robotsOpts = { timeoutMs, maxDelayMs: Number(ctx.config.crawlMaxDelayMs) || 5000 };
  const startNorm = crawlStart(d.url, false);
  const start = new URL(startNorm);
  const robots = await loadRobots(ctx, start.origin, robotsOpts);
  // Same rule as the crawler: no robots.txt answer, no map; a disallowed start page is only not fetched.
  if (robots.unreachable) checkStart(robots, startNorm);
  const scope: SiteScope = { site: siteOf(startNorm), subdomains: d.includeSubdomains, ignoreQuery: false, include: d.includePaths, exclude: d.excludePaths };
  // Room for the URLs robots.txt or the search will drop, within the map's own cap.
  const want = d.search ? Math.min(d.limit * 4, 30_000) : d.limit;
  const links = new Map<string, MapLink>();

  if (d.sitemap !== 'skip') {
    for (const url of await sitemapPages(ctx, { rules: robots, scope, max: want, maxFiles: MAP_SITEMAP_FILES, maxBytes, timeoutMs, deadline: Date.now() + MAP_SITEMAP_BUDGET_MS })) links.set(url, { url });
  }
  if (d.sitemap !== 'only' && robots.allows(startNorm) && (await waitTurn(robots, ctx.signal))) {
    const page = await fetchPage(ctx, { url: startNorm, renderJs: false, timeoutMs, maxBytes }).catch((err: unknown) => {
      // Without the start page the sitemaps still answer; with neither, the fetch error does.
      if (links.size === 0 || ctx.signal.aborted) throw err;
      ctx.log.debug({ err, url: startNorm }, 'map: start page not read');
      return undefined;
    });
    if (page?.kind === 'html') {
      const out = await ctx.state.pages.run('mapPage', { html: page.body, url: page.url, status: page.status, contentType: page.contentType, scope, max: want }, { signal: ctx.signal });
      if (out.selfAllowed) links.set(startNorm, { url: startNorm, ...(out.title ? { title: out.title } : {}), ...(out.description ? { description: out.description } : {}) });
      for (const url of out.links) if (!links.has(url)) links.set(url, { url });
    }
  }

  const allowed = await robotsFilter(ctx, [...links.values()], robots, robotsOpts);
  const needle = d.search?.toLowerCase();
  const found = needle ? allowed.filter((l) => decodeSafe(l.url).toLowerCase().includes(needle) || (l.title ?? '').toLowerCase().includes(needle)) : allowed;
  const out = found.slice(0, d.limit);
  return { links: out, count: out.length };
}

/**
 * The links robots.txt of their origin allows (a few origins read at most; others are dropped).
 * The matching runs in a compute worker, one call per origin: a map may hold 30,000 URLs.
 */
async function robotsFilter(ctx: WebContext, links: MapLink[], start: OriginRules, opts: { timeoutMs: number; maxDelayMs: number }): Promise<MapLink[]> {
  const byOrigin = new Map<string, MapLink[]>();
  for (const link of links) {
    const origin = new URL(link.url).origin;
    const list = byOrigin.get(origin);
    if (list) list.push(link);
    else if (byOrigin.size <= MAP_ORIGINS || origin === start.origin) byOrigin.set(origin, [link]);
  }
  const allowed = new Set<string>();
  for (const [origin, list] of byOrigin) {
    const rules = origin === start.origin ? start : await loadRobots(ctx, origin, opts).catch((err: unknown) => refusedOrigin(origin, err));
    if (rules.unreachable) continue;
    const urls = list.map((l) => l.url);
    const ok = rules.text ? await ctx.state.pages.run('robotsAllowed', { robotsUrl: `${origin}/robots.txt`, text: rules.text, urls }, { signal: ctx.signal }) : urls;
    for (const u of ok) allowed.add(u);
  }
  return links.filter((l) => allowed.has(l.url));
}

function decodeSafe(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}
