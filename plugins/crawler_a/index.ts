/**
 * crawler_a (Firecrawl v2, contracts §5): scrape, search, map, crawl (async job + polling) and
 * screenshot. Serves `crawl_site` first in the deployment order (spec §4.10) and `screenshot`
 * when asked for by `provider`.
 */
import { InputError, Type, UnsupportedOptionError, UpstreamError, defineEndpoint, definePlugin, flat, implement, perUnit, type RunContext, type Static } from '../../core/sdk.js';
import { CRAWL_CREDITS_PER_PAGE, CRAWL_SYNC_MAX, mapDefaults, mapSite, crawlDefaults, crawlOutput, crawlSite, screenshot as screenshotCapability, wholeMs, pngScreenshotSettings, userUrl } from '../../core/catalogue.js';
import { copyScreenshot } from './screenshot-copy.js';
import { CrawlerAClient, type CrawlerADocument } from './client.js';

const config = {
  baseUrl: { type: 'url', description: 'crawler_a API base URL.', default: 'https://api.firecrawl.dev' },
  apiKey: { type: 'secret', description: 'crawler_a API key (Bearer token, `fc-…`).', required: true },
  pollIntervalMs: { type: 'integer', min: 10, max: 60000, description: 'How often a crawl job is polled, in ms (default 2000).', default: 2000 },
} as const;

type Ctx = RunContext<unknown>;
const client = (ctx: Ctx) => new CrawlerAClient(ctx);

const Document = Type.Object(
  {
    markdown: Type.Optional(Type.String({ description: 'Page as markdown.' })),
    html: Type.Optional(Type.String({ description: 'Cleaned HTML.' })),
    rawHtml: Type.Optional(Type.String({ description: 'HTML as served.' })),
    links: Type.Optional(Type.Array(Type.String(), { description: 'Links on the page.' })),
    screenshot: Type.Optional(Type.String({ description: 'Screenshot URL (expires after 24 h).' })),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'title, description, language, og*, sourceURL, url, statusCode, contentType…' })),
  },
  { additionalProperties: true, description: 'A scraped document.' },
);
const Formats = Type.Array(Type.Union(['markdown', 'html', 'rawHtml', 'links'].map((f) => Type.Literal(f))), { description: 'Formats to return (default markdown).' });

const scrape = defineEndpoint({
  operation: 'scrape',
  title: 'crawler_a scrape',
  summary: 'Scrape one URL to markdown, HTML, raw HTML or links.',
  input: Type.Object({
    url: Type.String({ description: 'Page URL.', minLength: 1 }),
    formats: Type.Optional(Formats),
    onlyMainContent: Type.Optional(Type.Boolean({ description: 'Main content only (default true).' })),
    waitFor: Type.Optional(Type.Integer({ minimum: 0, maximum: 60000, description: 'Wait before scraping, ms.' })),
  }),
  output: Document,
  cost: flat(10),
  examples: [{ title: 'A documentation page as markdown and links', input: { url: 'https://docs.example.org/start', formats: ['markdown', 'links'] } }],
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  async run(input, ctx) {
    const doc = await client(ctx).scrape({ url: input.url, formats: input.formats ?? ['markdown'], onlyMainContent: input.onlyMainContent ?? true, waitFor: input.waitFor ?? 0 });
    ctx.setNative(doc);
    return doc as Static<typeof Document>;
  },
});

const search = defineEndpoint({
  operation: 'search',
  title: 'crawler_a search',
  summary: 'Web search, optionally scraping each result.',
  input: Type.Object({
    query: Type.String({ description: 'Search query.', minLength: 1 }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Results (default 10).' })),
    sources: Type.Optional(Type.Array(Type.Union(['web', 'news', 'images'].map((s) => Type.Literal(s))), { description: 'Result kinds (default web).' })),
  }),
  output: Type.Object({}, { additionalProperties: true, description: '`web`, `news`, `images` result lists.' }),
  cost: flat(10),
  examples: [{ title: 'Top web results', input: { query: 'headless browser scraping', limit: 3 } }],
  messages: { query: 'query parameter is required' },
  async run(input, ctx) {
    const out = await client(ctx).call<{ data?: Record<string, unknown> }>('POST', '/v2/search', { query: input.query, limit: input.limit ?? 10, sources: input.sources ?? ['web'] });
    ctx.setNative(out);
    return out.data ?? {};
  },
});

const map = defineEndpoint({
  operation: 'map',
  title: 'crawler_a map',
  summary: 'List the URLs of a site (sitemap and links), optionally ranked by a search term.',
  input: Type.Object({
    url: Type.String({ description: 'Site URL.', minLength: 1 }),
    search: Type.Optional(Type.String({ description: 'Rank links by relevance to this.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, description: 'Most links (default 5000).' })),
    includeSubdomains: Type.Optional(Type.Boolean({ description: 'Include subdomains (default true).' })),
    sitemap: Type.Optional(Type.Union([Type.Literal('include'), Type.Literal('skip'), Type.Literal('only')], { description: 'Use the sitemap: include (default), skip or only.' })),
  }),
  output: Type.Object({ links: Type.Array(Type.Object({ url: Type.String({ description: 'Link URL.' }) }, { additionalProperties: true }), { description: 'Site links with title/description when known.' }) }),
  cost: flat(10),
  examples: [{ title: 'URLs of a site', input: { url: 'https://example.org', limit: 100 } }],
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  async run(input, ctx) {
    const out = await client(ctx).call<{ links?: unknown[] }>('POST', '/v2/map', input);
    ctx.setNative(out);
    const links = (out.links ?? []).map((l) => (typeof l === 'string' ? { url: l } : (l as { url: string })));
    return { links };
  },
});

const CrawlIn = Type.Object({
  url: Type.String({ description: 'Start URL.', minLength: 1 }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Most pages (default 5).' })),
  maxDiscoveryDepth: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'Most link hops (default 2).' })),
  formats: Type.Optional(Formats),
  includePaths: Type.Optional(Type.Array(Type.String(), { description: 'Path regular expressions a page must match.' })),
  excludePaths: Type.Optional(Type.Array(Type.String(), { description: 'Path regular expressions that skip a page.' })),
  allowSubdomains: Type.Optional(Type.Boolean({ description: 'Follow subdomains (default false).' })),
  ignoreQueryParameters: Type.Optional(Type.Boolean({ description: 'One page per path whatever its query (default false).' })),
  sitemap: Type.Optional(Type.Union([Type.Literal('include'), Type.Literal('skip'), Type.Literal('only')], { description: 'Use the sitemap: include (default), skip or only.' })),
});

const crawl = defineEndpoint({
  operation: 'crawl',
  title: 'crawler_a crawl',
  summary: 'Crawl a site as an async job, polled until it completes; 10 credits per page returned.',
  input: CrawlIn,
  output: Type.Object({
    status: Type.String({ description: 'Final job status.' }),
    total: Type.Optional(Type.Integer({ description: 'Pages the job found to crawl.' })),
    completed: Type.Optional(Type.Integer({ description: 'Pages the job finished.' })),
    data: Type.Array(Document, { description: 'Crawled documents.' }),
  }),
  cost: perUnit({ unit: 'pages', credits: CRAWL_CREDITS_PER_PAGE, max: (i: { limit?: number }) => i.limit ?? 5, note: '10 credits per page returned' }),
  timeoutMs: 180_000,
  examples: [{ title: 'Three pages of a site', input: { url: 'https://example.org', limit: 3, maxDiscoveryDepth: 1 } }],
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  async run(input, ctx) {
    const limit = input.limit ?? 5;
    const job = await client(ctx).crawl(
      {
        url: input.url,
        limit,
        maxDiscoveryDepth: input.maxDiscoveryDepth ?? 2,
        scrapeOptions: { formats: input.formats ?? ['markdown'] },
        ...(input.includePaths?.length ? { includePaths: input.includePaths } : {}),
        ...(input.excludePaths?.length ? { excludePaths: input.excludePaths } : {}),
        ...(input.allowSubdomains !== undefined ? { allowSubdomains: input.allowSubdomains } : {}),
        ...(input.ignoreQueryParameters !== undefined ? { ignoreQueryParameters: input.ignoreQueryParameters } : {}),
        ...(input.sitemap ? { sitemap: input.sitemap } : {}),
      },
      Number(ctx.config.pollIntervalMs) || 2000,
    );
    const data = job.data.slice(0, limit);
    ctx.setNative({ ...job, data: undefined });
    ctx.usage.add('pages', data.length);
    return { status: job.status, total: job.total, completed: job.completed, data: data as Static<typeof Document>[] };
  },
});

const ScreenshotIn = Type.Object({
  url: Type.String({ description: 'Page URL.', minLength: 1 }),
  fullPage: Type.Optional(Type.Boolean({ description: 'Whole page (default false).' })),
  viewport: Type.Optional(Type.Object({ width: Type.Integer({ minimum: 100, description: 'Viewport width in CSS pixels.' }), height: Type.Integer({ minimum: 100, description: 'Viewport height in CSS pixels.' }) }, { description: 'Viewport.' })),
  waitFor: Type.Optional(Type.Integer({ minimum: 0, maximum: 60000, description: 'Wait before capture, ms.' })),
  blockAds: Type.Optional(Type.Boolean({ description: 'Block ads and cookie pop-ups (the API default is true).' })),
});

const screenshot = defineEndpoint({
  operation: 'screenshot',
  title: 'crawler_a screenshot',
  summary: 'Screenshot through a scrape with the screenshot format; the image is copied into the file store and answered as a 24-hour signed link.',
  input: ScreenshotIn,
  output: Type.Object({ url: Type.String({ description: 'Temporary signed URL of the image in our file store (24 h).' }), contentType: Type.String({ description: 'Image type.' }), pageUrl: Type.Optional(Type.String({ description: 'URL of the page captured (after redirects).' })), title: Type.Optional(Type.String({ description: 'Title of the page captured.' })) }),
  cost: flat(10),
  examples: [{ title: 'Full-page capture', input: { url: 'https://example.org', fullPage: true } }],
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  async run(input, ctx) {
    const format: Record<string, unknown> = { type: 'screenshot', fullPage: input.fullPage ?? false };
    if (input.viewport) format.viewport = input.viewport;
    const doc = await client(ctx).scrape({ url: input.url, formats: [format], waitFor: input.waitFor ?? 0, ...(input.blockAds === undefined ? {} : { blockAds: input.blockAds }) });
    ctx.setNative(doc);
    if (typeof doc.screenshot !== 'string' || !doc.screenshot) throw new UpstreamError('Received invalid data structure from crawler_a service.');
    const meta = doc.metadata ?? {};
    const copy = await copyScreenshot(ctx, doc.screenshot);
    return { url: copy.url, contentType: copy.contentType, pageUrl: (meta.url ?? meta.sourceURL) as string | undefined, title: meta.title as string | undefined };
  },
});

/** crawl_site `text` from markdown: drop the markup, keep the words. */
function markdownToText(md: string): string {
  return md
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/(\*\*|__|\*|_|`)/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function pageContent(doc: CrawlerADocument, format: string): string {
  if (format === 'raw') return doc.rawHtml ?? doc.html ?? '';
  const md = doc.markdown ?? '';
  return format === 'text' ? markdownToText(md) : md;
}

export default definePlugin({
  id: 'crawler_a',
  apiVersion: 1,
  title: 'crawler_a (Firecrawl-compatible API)',
  summary: 'Hosted scraping and crawling: scrape, search, map, async crawl and screenshots.',
  tags: ['crawl', 'scrape', 'search', 'map', 'screenshot', 'provider'],
  config,
  endpoints: [scrape, search, map, crawl, screenshot],
  implements: [
    implement(crawlSite, crawl, {
      // contracts §5d: the v2 crawl takes every crawl option; one call here polls for at most
      // 100 pages, so a bigger crawl (a job) hands on to a crawler that can do it.
      mapInput: (i) => {
        const d = crawlDefaults(i);
        if (d.limit > CRAWL_SYNC_MAX) throw new UnsupportedOptionError(`'limit' above ${CRAWL_SYNC_MAX} is not supported by provider crawler_a; use provider web.`);
        // Only what the caller set is sent: the API's own defaults match ours.
        return {
          url: d.url,
          limit: d.limit,
          maxDiscoveryDepth: d.depth,
          formats: [d.format === 'raw' ? 'rawHtml' : 'markdown'],
          ...(i.includePaths?.length ? { includePaths: i.includePaths } : {}),
          ...(i.excludePaths?.length ? { excludePaths: i.excludePaths } : {}),
          ...(i.allowSubdomains !== undefined ? { allowSubdomains: i.allowSubdomains } : {}),
          ...(i.ignoreQueryParameters !== undefined ? { ignoreQueryParameters: i.ignoreQueryParameters } : {}),
          ...(i.sitemap ? { sitemap: i.sitemap } : {}),
        };
      },
      mapOutput: (o, i) => {
        const format = crawlDefaults(i).format;
        return crawlOutput(
          i,
          (o.data as CrawlerADocument[]).map((doc) => ({
            url: String(doc.metadata?.sourceURL ?? doc.metadata?.url ?? ''),
            status: Number(doc.metadata?.statusCode ?? 200),
            content: pageContent(doc, format),
          })),
        );
      },
    }),
    implement(mapSite, map, {
      // contracts §5c: the v2 map has no path rules; those hand on to a provider that has them.
      mapInput: (i) => {
        const d = mapDefaults(i);
        if (d.includePaths.length || d.excludePaths.length) throw new UnsupportedOptionError("'includePaths' and 'excludePaths' are not supported by provider crawler_a for map_site; use provider web.");
        return { url: d.url, limit: d.limit, includeSubdomains: d.includeSubdomains, sitemap: d.sitemap, ...(d.search ? { search: d.search } : {}) };
      },
      mapOutput: (o) => {
        const links = (o.links as Record<string, unknown>[]).map((l) => ({ url: String(l.url), ...(typeof l.title === 'string' ? { title: l.title } : {}), ...(typeof l.description === 'string' ? { description: l.description } : {}) }));
        return { links, count: links.length };
      },
    }),
    implement(screenshotCapability, screenshot, {
      // contracts §5a: the screenshot format has no clip and no scrolling; refused rather than
      // ignored. Cookie pop-ups are what the API's blockAds blocks.
      mapInput: (i) => {
        if (i.clipRectangle) throw new UnsupportedOptionError("'clipRectangle' is not supported by provider crawler_a; use provider web, shot_a or browser_a.");
        if (i.autoScroll) throw new UnsupportedOptionError("'autoScroll' is not supported by provider crawler_a; use provider web or browser_a.");
        const { viewport, wait } = pngScreenshotSettings(i, 'crawler_a');
        return { url: userUrl(i.url), fullPage: i.fullPage, viewport, waitFor: wait, blockAds: i.blockCookieBanners ?? true };
      },
      mapOutput: (o) => ({ screenshotUrl: o.url, url: o.url, contentType: o.contentType, ...(o.pageUrl ? { pageUrl: o.pageUrl } : {}) }),
    }),
  ],
});
