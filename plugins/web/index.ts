/**
 * The service's own web plugin (issue 4; spec §4.5, §4.9, §4.10): scrape, crawl, screenshot and
 * extract done on this machine with no key — a plain guarded fetch or the warm Chromium pool,
 * Readability for main content, turndown (GFM) for markdown, the file store for images.
 */
import { InputError, defineEndpoint, definePlugin, flat, perUnit, type ConfigField, type Static } from '../../core/sdk.js';
import {
  COOKIE_BANNER_SELECTORS,
  CRAWL_CREDITS_PER_PAGE,
  CrawlOutput,
  ExtractOutput,
  ScrapeOutput,
  ScreenshotOutput,
  WebExtractInput,
  crawlDefaults,
  crawlOutput,
  crawlSite as crawlCapability,
  scrapePage,
  webExtractRules,
  userUrl,
  screenshot as screenshotCapability,
  wholeMs,
} from '../../core/sdk.js';
import { fetchPage, limitsFrom } from './fetch-page.js';
import { pageData, registerPageWork, type WebContext, type WebState } from './work.js';
import { crawlSite } from './crawler.js';


const config = {
  maxPageBytes: {
    description: 'Largest page body the web plugin reads, in bytes; with renderJs, everything the page downloads counts (default 10 MB).',
    default: String(10 * 1024 * 1024),
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
  screenshotScrollMs: {
    description: 'Longest time a screenshot with `autoScroll` spends scrolling through the page so lazy content loads, in ms (default 8000).',
    type: 'integer',
    default: 8000,
    min: 0,
    max: 60000,
  },
} satisfies Record<string, ConfigField>;

type Ctx = WebContext;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Uint8Array): { width?: number; height?: number } {
  if (png.byteLength < 24) return {};
  const b = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

async function storePng(ctx: Ctx, png: Uint8Array) {
  const file = await ctx.engines.files.put(png, { contentType: 'image/png', extension: 'png' });
  ctx.usage.add('output_bytes', png.byteLength);
  return file;
}

const scrape = defineEndpoint({
  operation: 'scrape',
  title: 'Scrape a page on this machine',
  summary: 'Fetches a page (Chromium when renderJs, else plain HTTP) and returns markdown, HTML or a PNG screenshot URL.',
  input: scrapePage.input,
  output: ScrapeOutput,
  perKeyConcurrency: 16,
  cost: flat(10),
  timeoutMs: 90_000,
  validate: scrapePage.validate,
  messages: scrapePage.messages,
  async run(input, ctx: Ctx): Promise<Static<typeof ScrapeOutput>> {
    const { maxBytes, timeoutMs } = limitsFrom(ctx.config);
    const format = input.format ?? 'markdown';
    const cleaned = input.cleaned ?? false;
    const url = userUrl(input.url);
    if (format === 'screenshot') {
      const page = await fetchPage(ctx, { url, renderJs: true, screenshot: { fullPage: false }, timeoutMs, maxBytes });
      if (!page.screenshot) throw new InputError(`Cannot take a screenshot of ${page.url}: it is not a web page (${page.contentType || 'unknown type'}).`);
      const file = await storePng(ctx, page.screenshot);
      const summary = await ctx.state.pages.run('pageSummary', pageData(page), { signal: ctx.signal });
      const metadata = { ...summary.metadata, expiresAt: file.expiresAt.toISOString(), ...pngSize(page.screenshot) };
      return {
        title: page.title || summary.title,
        url: page.url,
        content: file.url,
        metadata,
        format,
        cleaned,
      };
    }
    const page = await fetchPage(ctx, { url, renderJs: input.renderJs ?? true, timeoutMs, maxBytes });
    if (page.kind !== 'html') {
      const title = page.body.split('\n').find((l) => l.trim())?.trim().slice(0, 200) ?? '';
      return { title, url: page.url, content: page.body, metadata: { statusCode: page.status, contentType: page.contentType }, format, cleaned };
    }
    const out = await ctx.state.pages.run('scrapeContent', { ...pageData(page), format, cleaned }, { signal: ctx.signal });
    if (out.warning) ctx.log.warn({ url: page.url }, out.warning);
    return { title: out.title || page.title || '', url: page.url, content: out.content, metadata: out.metadata, format, cleaned };
  },
});

const crawl = defineEndpoint({
  operation: 'crawl',
  title: 'Crawl a site on this machine',
  summary: 'Breadth-first same-site crawl honouring robots.txt and Crawl-delay; 10 credits per page returned.',
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
      },
      autoScroll: input.autoScroll ? { maxMs: scrollMs } : undefined,
      viewport: input.viewport,
      waitMs: wholeMs(input.wait),
      timeoutMs: timeoutMs + (wholeMs(input.wait) ?? 0) + scrollMs,
      signal: ctx.signal,
    });
    if (!page.screenshot) throw new InputError(`Cannot take a screenshot of ${page.url}: it is not a web page (${page.contentType || 'unknown type'}).`);
    const file = await storePng(ctx, page.screenshot);
    const full = page.fullPage ? { pageHeight: page.fullPage.pageHeight, clipped: page.fullPage.clipped } : {};
    return { screenshotUrl: file.url, url: file.url, contentType: 'image/png', expiresAt: file.expiresAt.toISOString(), ...pngSize(page.screenshot), pageUrl: page.url, ...full };
  },
});

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
  summary: 'Scrape, crawl, screenshot and extract web pages on this machine: plain HTTP or a warm Chromium, with the SSRF guard.',
  tags: ['web', 'scrape', 'crawl', 'screenshot', 'extract', 'chromium', 'managed'],
  managed: true,
  config,
  // The CPU-heavy page work is handed to the compute engine by this plugin's own module URL.
  setup: ({ engines }) => registerPageWork(engines),
  endpoints: [scrape, crawl, shot, extract],
  implements: [
    { capability: 'scrape_page', endpoint: 'scrape' },
    { capability: 'crawl_site', endpoint: 'crawl' },
    { capability: 'screenshot', endpoint: 'screenshot' },
    // extract_web is the extraction lane's (issue 15); `web.extract` stays a direct endpoint.
  ],
});


