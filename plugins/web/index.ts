/**
 * The service's own web plugin (issue 4; spec §4.5, §4.9, §4.10): scrape, crawl, screenshot and
 * extract done on this machine with no key — a plain guarded fetch or the warm Chromium pool,
 * Readability for main content, turndown (GFM) for markdown, the file store for images.
 */
import { InputError, defineEndpoint, definePlugin, flat, perUnit, readImageHeader, type ConfigField, type Static } from '../../core/sdk.js';
import { COOKIE_BANNER_SELECTORS, CRAWL_CREDITS_PER_PAGE, CrawlOutput, ExtractOutput, ScrapeOutput, ScreenshotOutput, BatchOutput, MapOutput, batchScrape as batchCapability, mapSite as mapCapability, WebExtractInput, crawlDefaults, crawlOutput, crawlSite as crawlCapability, scrapePage, webExtractRules, userUrl, screenshot as screenshotCapability, screenshotSettings, wholeMs } from '../../core/catalogue.js';
import { fetchPage, limitsFrom, webProxy } from './fetch-page.js';
import { pageData, registerPageWork, type WebContext, type WebState } from './work.js';
import { crawlSite } from './crawler.js';
import { crawlSteps } from './crawl-steps.js';
import { batchScrape, batchSteps } from './batch.js';
import { mapSite } from './map.js';
import { scrape } from './scrape.js';


const config = {
  maxPageBytes: {
    description: 'Largest page body the web plugin reads, in bytes; with renderJs, everything the page downloads counts (default 10 MB).',
    default: String(10 * 1024 * 1024),
  },
  proxyUrl: {
    type: 'url',
    description:
      'HTTP proxy the web plugin fetches pages through, browser and plain fetch alike (`http://[user:pass@]host:port`), for sites that block the server\'s address; a scrape with `proxy: "none"` goes directly. The SSRF guard still checks every address first. Unset: direct.',
  },
  pageTimeoutMs: { description: 'Time allowed to load one page, in ms (default 20000).', default: '20000' },
  crawlMaxDelayMs: { description: 'Longest robots.txt Crawl-delay honoured as written, in ms; longer ones are capped (default 5000).', default: '5000' },
  crawlTimeoutMs: { description: 'Time budget of one crawl, in ms; the pages gathered by then are returned (default 150000).', default: '150000' },
  screenshotMaxHeight: {
    description: 'Tallest full-page screenshot in CSS pixels at widths up to 1280 (wider ones get the same area); a taller page is captured from its top and the answer says `clipped` (default 16384).',
    type: 'integer',
    default: 16384,
    min: 100,
    max: 65535,
  },
  cacheRetentionMs: {
    description: 'How long a scrape answer stays in the shared cache for `maxAge` calls, in ms; older entries are deleted (default 86400000, a day).',
    type: 'integer',
    default: 86_400_000,
    min: 1000,
    max: 30 * 86_400_000,
  },
  snapshotRetentionDays: {
    description: 'How long a change-tracking snapshot is kept without a newer scrape of its page, in days; older ones are deleted and the next scrape counts as new (default 90). Snapshots are also deleted with their key.',
    type: 'integer',
    default: 90,
    min: 1,
    max: 3650,
  },
  screenshotScrollMs: {
    description: 'Longest time a screenshot with `autoScroll` spends scrolling through the page so lazy content loads, in ms (default 8000).',
    type: 'integer',
    default: 8000,
    min: 0,
    max: 60000,
  },
} satisfies Record<string, ConfigField>;

type Ctx = WebContext;

/** The MIME type and extension of each screenshot image format. */
const IMAGE_TYPES = { png: ['image/png', 'png'], jpeg: ['image/jpeg', 'jpg'], webp: ['image/webp', 'webp'] } as const;

const scrapeEndpoint = defineEndpoint({
  operation: 'scrape',
  title: 'Scrape a page on this machine',
  summary: 'Fetches a page (Chromium when renderJs, else plain HTTP) and returns markdown, HTML, raw HTML, links, screenshots and change tracking (a diff, or extracted fields compared by the model lane), after page actions, from the shared cache when maxAge allows.',
  input: scrapePage.input,
  output: ScrapeOutput,
  perKeyConcurrency: 16,
  cost: scrapePage.cost,
  timeoutMs: 90_000,
  validate: scrapePage.validate,
  messages: scrapePage.messages,
  run: (input, ctx: Ctx) => scrape(input, ctx),
});

const crawl = defineEndpoint({
  operation: 'crawl',
  title: 'Crawl a site on this machine',
  summary: 'Breadth-first same-site crawl from the start URL and sitemaps, honouring robots.txt, Crawl-delay and path rules; 10 credits per page returned.',
  input: crawlCapability.input,
  output: CrawlOutput,
  perKeyConcurrency: 4,
  cost: perUnit({ unit: 'pages', credits: CRAWL_CREDITS_PER_PAGE, max: (i: { limit?: number }) => i.limit ?? 5, note: '10 credits per page returned' }),
  timeoutMs: 180_000,
  validate: crawlCapability.validate,
  messages: crawlCapability.messages,
  async run(input, ctx: Ctx) {
    const { maxBytes, timeoutMs } = limitsFrom(ctx.config);
    const d = crawlDefaults(input);
    const budget = Number(ctx.config.crawlTimeoutMs) || 150_000;
    const results = await crawlSite(ctx, {
      ...d,
      maxBytes,
      timeoutMs,
      maxDelayMs: Number(ctx.config.crawlMaxDelayMs) || 5000,
      deadline: Date.now() + budget,
    });
    ctx.usage.add('pages', results.length);
    return crawlOutput(input, results);
  },
});

const map = defineEndpoint({
  operation: 'map',
  title: 'Map a site on this machine',
  summary: 'Lists the URLs of a site from its sitemaps (robots.txt, /sitemap.xml, indexes, gzipped files) and its start page; 10 credits per call.',
  input: mapCapability.input,
  output: MapOutput,
  perKeyConcurrency: 4,
  cost: mapCapability.cost,
  timeoutMs: 120_000,
  validate: mapCapability.validate,
  messages: mapCapability.messages,
  run: (input, ctx: Ctx) => mapSite(input, ctx),
});

const batch = defineEndpoint({
  operation: 'batch_scrape',
  title: 'Scrape many pages on this machine',
  summary: 'Scrapes each URL through scrape_page, a few at a time; one result per URL, 10 credits per page scraped, failures free.',
  input: batchCapability.input,
  output: BatchOutput,
  perKeyConcurrency: 4,
  cost: batchCapability.cost,
  timeoutMs: 180_000,
  validate: batchCapability.validate,
  messages: batchCapability.messages,
  run: (input, ctx: Ctx) => batchScrape(input, ctx),
});

const shot = defineEndpoint({
  operation: 'screenshot',
  title: 'Screenshot with the local Chromium',
  summary: 'Renders the page in the warm Chromium pool (clip rectangle, cookie banners hidden, auto-scroll for lazy content) and stores a PNG behind a temporary URL.',
  input: screenshotCapability.input,
  output: ScreenshotOutput,
  perKeyConcurrency: 16,
  cost: screenshotCapability.cost,
  timeoutMs: 90_000,
  validate: screenshotCapability.validate,
  messages: screenshotCapability.messages,
  async run(input, ctx: Ctx) {
    const { timeoutMs, maxBytes } = limitsFrom(ctx.config);
    // Issue 28: the flat spellings (width, height, waitFor, format, quality, deviceScaleFactor).
    const set = screenshotSettings(input);
    const wait = wholeMs(set.wait);
    // Issue 14: scrolling is bounded by its own budget, which the job's deadline makes room for.
    const scrollMs = input.autoScroll ? Number(ctx.config.screenshotScrollMs ?? 8000) : 0;
    const page = await ctx.engines.browser.render({
      url: userUrl(input.url),
      maxBytes,
      screenshot: {
        fullPage: input.fullPage ?? false,
        maxHeight: Number(ctx.config.screenshotMaxHeight) || undefined,
        clip: input.clipRectangle,
        hideSelectors: input.blockCookieBanners === false ? undefined : [...COOKIE_BANNER_SELECTORS],
        type: set.format,
        quality: set.quality,
      },
      autoScroll: input.autoScroll ? { maxMs: scrollMs } : undefined,
      viewport: set.viewport || set.deviceScaleFactor ? { ...(set.viewport ?? { width: 1280, height: 800 }), deviceScaleFactor: set.deviceScaleFactor } : undefined,
      waitMs: wait,
      timeoutMs: timeoutMs + (wait ?? 0) + scrollMs,
      signal: ctx.signal,
      owner: ctx.caller,
      proxy: webProxy(ctx, undefined),
    });
    if (!page.screenshot) throw new InputError(`Cannot take a screenshot of ${page.url}: it is not a web page (${page.contentType || 'unknown type'}).`);
    const [contentType, extension] = IMAGE_TYPES[set.format];
    const file = await ctx.engines.files.put(page.screenshot, { contentType, extension });
    ctx.usage.add('output_bytes', page.screenshot.byteLength);
    const full = page.fullPage ? { pageHeight: page.fullPage.pageHeight, clipped: page.fullPage.clipped } : {};
    return { screenshotUrl: file.url, url: file.url, contentType, expiresAt: file.expiresAt.toISOString(), ...pixelSize(page.screenshot), pageUrl: page.url, ...full };
  },
});

/** The width and height the screenshot file really has, read from its header, so the answer states them. */
function pixelSize(image: Uint8Array): { width?: number; height?: number } {
  const header = readImageHeader(image);
  return header ? { width: header.width, height: header.height } : {};
}

const extract = defineEndpoint({
  operation: 'extract',
  title: 'Extract main content on this machine',
  summary: 'Readability-class extraction of the main content, with metadata and links.',
  input: WebExtractInput,
  output: ExtractOutput,
  perKeyConcurrency: 16,
  cost: flat(10),
  timeoutMs: 90_000,
  validate: webExtractRules.validate,
  messages: webExtractRules.messages,
  async run(input, ctx: Ctx) {
    const { maxBytes, timeoutMs } = limitsFrom(ctx.config);
    const page = await fetchPage(ctx, { url: userUrl(input.url), renderJs: input.renderJs ?? true, timeoutMs, maxBytes });
    if (page.kind !== 'html') {
      const title = page.body.split('\n').find((l) => l.trim())?.trim().slice(0, 200) ?? '';
      return { url: page.url, title, content: page.body, text: page.body, metadata: { statusCode: page.status, contentType: page.contentType }, links: [] };
    }
    // A page with no article-like block (a short landing page) is returned whole rather than refused.
    const { warning, ...out } = await ctx.state.pages.run('extractContent', pageData(page), { signal: ctx.signal });
    if (warning) ctx.log.warn({ url: page.url }, warning);
    return { url: page.url, ...out };
  },
});

export default definePlugin<WebState>({
  id: 'web',
  apiVersion: 1,
  title: 'Web (service-managed)',
  summary: 'Scrape, batch scrape, crawl, map, screenshot and extract web pages on this machine: plain HTTP or a warm Chromium, with the SSRF guard.',
  tags: ['web', 'scrape', 'crawl', 'map', 'batch', 'screenshot', 'extract', 'chromium', 'managed'],
  managed: true,
  config,
  // The CPU-heavy page work is handed to the compute engine by this plugin's own module URL.
  setup: ({ engines }) => registerPageWork(engines),
  endpoints: [scrapeEndpoint, crawl, shot, extract, map, batch],
  implements: [
    { capability: 'scrape_page', endpoint: 'scrape' },
    { capability: 'crawl_site', endpoint: 'crawl', steps: crawlSteps },
    { capability: 'map_site', endpoint: 'map' },
    { capability: 'batch_scrape', endpoint: 'batch_scrape', steps: batchSteps },
    { capability: 'screenshot', endpoint: 'screenshot' },
    // extract_web is the extraction lane's (issue 15); `web.extract` stays a direct endpoint.
  ],
});


