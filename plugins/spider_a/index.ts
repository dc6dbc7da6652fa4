/**
 * spider_a (Spider, contracts §6): scrape, crawl and links. Serves `crawl_site` as the fallback
 * after crawler_a (spec §4.10: "falls back to spider_a when needed").
 */
import { Type, UnsupportedOptionError, defineEndpoint, definePlugin, flat, implement, perUnit } from '../../core/sdk.js';
import { CRAWL_CREDITS_PER_PAGE, CRAWL_SYNC_MAX, crawlDefaults, crawlOutput, crawlSite } from '../../core/catalogue.js';
import { contentOf, spiderCall, type SpiderPage } from './client.js';

const config = {
  baseUrl: { type: 'url', description: 'spider_a API base URL.', default: 'https://api.spider.cloud' },
  apiKey: { type: 'secret', description: 'spider_a API key (Bearer token).', required: true },
} as const;

const ReturnFormat = Type.Union(['markdown', 'commonmark', 'raw', 'text', 'html2text'].map((f) => Type.Literal(f)), { description: 'Content format (default markdown).' });
const Request = Type.Union(['http', 'chrome', 'smart'].map((f) => Type.Literal(f)), { description: 'Fetch mode (default smart).' });
const Page = Type.Object(
  {
    url: Type.String({ description: 'Page URL.' }),
    status: Type.Integer({ description: 'HTTP status of the page.' }),
    content: Type.String({ description: 'Page content in the requested format.' }),
    error: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Why the page failed, if it did.' })),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'title, description, keywords…' })),
  },
  { description: 'One page.' },
);

const page = (p: SpiderPage, format?: string) => ({
  url: p.url,
  status: Number(p.status) || 0,
  content: contentOf(p, format),
  ...(p.error !== undefined ? { error: p.error } : {}),
  ...(p.metadata ? { metadata: p.metadata } : {}),
});

const scrape = defineEndpoint({
  operation: 'scrape',
  title: 'spider_a scrape',
  summary: 'Scrape one URL.',
  input: Type.Object({
    url: Type.String({ description: 'Page URL.', minLength: 1 }),
    return_format: Type.Optional(ReturnFormat),
    request: Type.Optional(Request),
  }),
  output: Page,
  cost: flat(10),
  examples: [{ title: 'One page as markdown', input: { url: 'https://example.org/blog', return_format: 'markdown' } }],
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  async run(input, ctx) {
    const format = input.return_format ?? 'markdown';
    const pages = await spiderCall(ctx, 'scrape', { url: input.url, return_format: format, request: input.request ?? 'smart', metadata: true, limit: 1 });
    ctx.setNative(pages);
    const first = pages[0];
    if (!first) return { url: input.url, status: 0, content: '', error: 'No content returned.' };
    return page(first, format);
  },
});

const crawl = defineEndpoint({
  operation: 'crawl',
  title: 'spider_a crawl',
  summary: 'Crawl a site synchronously; 10 credits per page returned.',
  input: Type.Object({
    url: Type.String({ description: 'Start URL.', minLength: 1 }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Most pages (default 5).' })),
    depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 25, description: 'Most link hops (default 2).' })),
    return_format: Type.Optional(ReturnFormat),
    request: Type.Optional(Request),
    subdomains: Type.Optional(Type.Boolean({ description: 'Include subdomains.' })),
    sitemap: Type.Optional(Type.Boolean({ description: 'Also crawl the URLs of the sitemap.' })),
    sitemap_only: Type.Optional(Type.Boolean({ description: 'Crawl only the URLs of the sitemap.' })),
  }),
  output: Type.Object({ pages: Type.Array(Page, { description: 'Crawled pages.' }) }),
  cost: perUnit({ unit: 'pages', credits: CRAWL_CREDITS_PER_PAGE, max: (i: { limit?: number }) => i.limit ?? 5, note: '10 credits per page returned' }),
  timeoutMs: 180_000,
  examples: [{ title: 'Four pages as plain text', input: { url: 'https://example.org', limit: 4, depth: 1, return_format: 'text' } }],
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  async run(input, ctx) {
    const limit = input.limit ?? 5;
    const format = input.return_format ?? 'markdown';
    const site = { ...(input.subdomains !== undefined ? { subdomains: input.subdomains } : {}), ...(input.sitemap !== undefined ? { sitemap: input.sitemap } : {}), ...(input.sitemap_only ? { sitemap_only: true } : {}) };
    const pages = await spiderCall(ctx, 'crawl', { url: input.url, limit, depth: input.depth ?? 2, return_format: format, request: input.request ?? 'smart', ...site });
    ctx.setNative(pages.map(({ content: _c, ...rest }) => rest));
    // Pages the target refused (4xx/5xx with no body) are not returned, so they are not charged.
    const kept = pages.filter((p) => p.content !== null && p.content !== undefined).slice(0, limit);
    ctx.usage.add('pages', kept.length);
    return { pages: kept.map((p) => page(p, format)) };
  },
});

const links = defineEndpoint({
  operation: 'links',
  title: 'spider_a links',
  summary: 'The links found on the pages of a site.',
  input: Type.Object({
    url: Type.String({ description: 'Start URL.', minLength: 1 }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Most pages to visit (default 1).' })),
    depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 25, description: 'Most link hops (default 1).' })),
  }),
  output: Type.Object({
    pages: Type.Array(Type.Object({ url: Type.String({ description: 'Page visited.' }), status: Type.Integer({ description: 'HTTP status of the page.' }), links: Type.Array(Type.String(), { description: 'Links found on the page.' }) }), { description: 'Links per visited page.' }),
  }),
  cost: flat(10),
  examples: [{ title: 'Links of a home page', input: { url: 'https://example.org' } }],
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  async run(input, ctx) {
    const pages = await spiderCall(ctx, 'links', { url: input.url, limit: input.limit ?? 1, depth: input.depth ?? 1, return_page_links: true });
    ctx.setNative(pages);
    return { pages: pages.map((p) => ({ url: p.url, status: Number(p.status) || 0, links: Array.isArray(p.links) ? p.links.map(String) : [] })) };
  },
});

export default definePlugin({
  id: 'spider_a',
  apiVersion: 1,
  title: 'spider_a (Spider-compatible API)',
  summary: 'Hosted crawling: scrape, synchronous crawl and link listing.',
  tags: ['crawl', 'scrape', 'links', 'spider', 'provider'],
  config,
  endpoints: [scrape, crawl, links],
  implements: [
    implement(crawlSite, crawl, {
      // contracts §6: subdomains and the sitemap are Spider parameters; path patterns and a
      // query rule have no documented equivalent, and one call returns at most 100 pages here,
      // so those hand on to the next crawler rather than being ignored.
      mapInput: (i) => {
        const d = crawlDefaults(i);
        if (d.limit > CRAWL_SYNC_MAX) throw new UnsupportedOptionError(`'limit' above ${CRAWL_SYNC_MAX} is not supported by provider spider_a; use provider web.`);
        if (d.includePaths.length || d.excludePaths.length) throw new UnsupportedOptionError("'includePaths' and 'excludePaths' are not supported by provider spider_a; use provider crawler_a or web.");
        if (d.ignoreQueryParameters) throw new UnsupportedOptionError("'ignoreQueryParameters' is not supported by provider spider_a; use provider crawler_a or web.");
        // Only what the caller set is sent, so a plain crawl asks exactly what it did before.
        const site = { ...(i.allowSubdomains !== undefined ? { subdomains: i.allowSubdomains } : {}), ...(i.sitemap ? { sitemap: i.sitemap !== 'skip', ...(i.sitemap === 'only' ? { sitemap_only: true } : {}) } : {}) };
        return { url: d.url, limit: d.limit, depth: d.depth, return_format: d.format, ...site };
      },
      mapOutput: (o, i) => crawlOutput(i, o.pages.map((p) => ({ url: p.url, status: p.status, content: p.content }))),
    }),
  ],
});
