/**
 * `crawl_site` as a job, one page per step (issue 25; core/plugin/job-steps.ts): the seed is the
 * start URL and the site's sitemap URLs (per the `sitemap` option, through robots.txt and the
 * path rules), each step crawls one page with crawl-page.ts (the synchronous crawler's code) and
 * offers its in-scope links to the job's frontier. The job engine keeps one item per URL, so no
 * page is fetched or charged twice; a redirect hands its target on as an item of its own.
 */
import { type JobItemSpec, type JobSteps } from '../../core/sdk.js';
import { crawlDefaults, type CrawlInputType } from '../../core/catalogue.js';
import { crawlOne, type CrawlEnv } from './crawl-page.js';
import { CRAWL_SITEMAP_FILES, checkStart, crawlScope, crawlStart } from './crawler.js';
import { limitsFrom } from './fetch-page.js';
import { sitemapPages } from './sitemaps.js';
import type { WebContext, WebState } from './work.js';

/** Time the seed spends reading sitemaps before the job starts with what it found, in ms. */
const SEED_SITEMAP_BUDGET_MS = 60_000;

/** What an item carries: its link distance from the start, and whether it is the start page. */
interface CrawlItemData {
  depth: number;
  start?: boolean;
}

/** What every item of one job's crawl shares, worked out once per job input. */
interface CrawlSetup {
  d: ReturnType<typeof crawlDefaults>;
  startNorm: string;
  scope: CrawlEnv['scope'];
  maxBytes: number;
  timeoutMs: number;
  robotsOpts: { timeoutMs: number; maxDelayMs: number };
  /** Ports whose links are followed: the default ones and the start URL's own. */
  ports: Set<string>;
}

/**
 * Set-ups by job input: a turn hands every item the same input object, so the defaults, the
 * normalised start URL and the scope are made once per turn rather than once per page.
 */
const setups = new WeakMap<object, CrawlSetup>();

function setupFor(ctx: WebContext, input: CrawlInputType): CrawlSetup {
  const hit = setups.get(input);
  if (hit) return hit;
  const d = crawlDefaults(input);
  const { maxBytes, timeoutMs } = limitsFrom(ctx.config);
  const startNorm = crawlStart(d.url, d.ignoreQueryParameters);
  const setup: CrawlSetup = {
    d,
    startNorm,
    scope: crawlScope(startNorm, d),
    maxBytes,
    timeoutMs,
    robotsOpts: { timeoutMs, maxDelayMs: Number(ctx.config.crawlMaxDelayMs) || 5000 },
    ports: new Set(['', new URL(d.url).port]),
  };
  setups.set(input, setup);
  return setup;
}

/** The crawl's environment for one step: the shared set-up, and robots.txt read under this step's context. */
function envFor(ctx: WebContext, input: CrawlInputType) {
  const setup = setupFor(ctx, input);
  const env: CrawlEnv = { scope: setup.scope, format: setup.d.format, maxBytes: setup.maxBytes, timeoutMs: setup.timeoutMs, robotsFor: (origin) => ctx.state.robots.get(ctx, origin, setup.robotsOpts) };
  return { d: setup.d, env, startNorm: setup.startNorm, ports: setup.ports };
}

/** The steps of a crawl job on this machine's crawler. */
export const crawlSteps: JobSteps<CrawlInputType, WebState> = {
  limit: (input) => crawlDefaults(input).limit,
  knownTotal: false,

  async seed(input, ctx) {
    const { d, env, startNorm } = envFor(ctx, input);
    const rules = await env.robotsFor(new URL(startNorm).origin);
    checkStart(rules, startNorm);
    const items: JobItemSpec[] = d.sitemap === 'only' ? [] : [{ key: startNorm, data: { depth: 0, start: true } satisfies CrawlItemData }];
    if (d.sitemap !== 'skip') {
      // Sitemap URLs count as one hop from the start; robots.txt of other origins is read when
      // their pages run.
      const listed = await sitemapPages(ctx, { rules, scope: env.scope, max: d.limit * 2, maxFiles: CRAWL_SITEMAP_FILES, maxBytes: env.maxBytes, timeoutMs: env.timeoutMs, deadline: Date.now() + SEED_SITEMAP_BUDGET_MS });
      for (const url of listed) if (d.sitemap === 'only' || url !== startNorm) items.push({ key: url, data: { depth: 1 } satisfies CrawlItemData });
    }
    return items;
  },

  async run(input, item, ctx) {
    const { d, env, ports } = envFor(ctx, input);
    const data = (item.data ?? { depth: 0 }) as unknown as CrawlItemData;
    const start = data.start === true;
    let page;
    try {
      page = await crawlOne(ctx, env, { url: item.key, start, links: d.sitemap !== 'only' && data.depth < d.depth });
    } catch (err) {
      // The start page failing is the job's news (a failed item); another page is left out, as
      // in the synchronous crawl.
      if (start || ctx.signal.aborted) throw err;
      ctx.log.debug({ err, url: item.key }, 'crawl: page skipped');
      return {};
    }
    if (!page || (!page.onSite && !start)) return {};
    // A redirect to another page of the site: that page becomes an item of its own, so a page
    // reached both directly and through a redirect is returned (and charged) once.
    if (page.finalNorm !== item.key && page.onSite) return { more: [{ key: page.finalNorm, data: { depth: data.depth } satisfies CrawlItemData }] };
    // A job keeps no per-crawl list of origins, so links to other ports of the site (each one an
    // origin with its own robots.txt to read) are not followed: a page listing hundreds of ports
    // cannot fan out. The default ports and the start URL's own stay.
    const more = page.links.filter((url) => ports.has(new URL(url).port)).map((url) => ({ key: url, data: { depth: data.depth + 1 } satisfies CrawlItemData }));
    return page.result ? { result: page.result, units: { pages: 1 }, more } : { more };
  },
};
