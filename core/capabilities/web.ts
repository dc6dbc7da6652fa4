/**
 * Web capabilities (spec §4.5, §4.9, §4.10; issue 4). Owned by the web lane. Implementations
 * come from the service's own `web` plugin and the crawler providers (`crawler_a`, `spider_a`,
 * `shot_a`, `browser_a`), which all map onto the output shapes declared here.
 */
import { Type, defineCapability, flat, perUnit, type Static } from '../sdk-base.js';

/** Spec §7.1: the 400 text for a missing or empty `url`. */
export const URL_REQUIRED = "'url' parameter is required and must be a non-empty string.";
/** Credits per crawled page returned (issue 4: "cost per crawled page (10 credits)"). */
export const CRAWL_CREDITS_PER_PAGE = 10;

const Url = (description: string) => Type.String({ description, minLength: 1, maxLength: 8192 });

/**
 * The URL a user meant: trimmed, and `https://` added to a bare host such as `example.com/docs`
 * (people paste those; a scheme-less string is never a valid absolute URL otherwise).
 */
export function userUrl(url: string): string {
  const u = url.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(u) && !/^[^/:]+:\d+(\/|$)/.test(u) ? u : `https://${u.replace(/^\/\//, '')}`;
}

/** Rejects URLs that are not absolute http(s) before any credit is reserved. */
function checkUrl(url: string): string | undefined {
  if (typeof url !== 'string' || !url.trim()) return URL_REQUIRED;
  let u: URL;
  try {
    u = new URL(userUrl(url));
    if (!u.hostname) throw new Error('no host');
  } catch {
    return `Invalid URL: '${url.slice(0, 200)}' is not an absolute http or https URL.`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `Invalid URL: only http and https URLs can be fetched (got ${u.protocol.replace(/:$/, '')}).`;
  return undefined;
}

const Metadata = Type.Object(
  {
    title: Type.Optional(Type.String({ description: 'Document title.' })),
    description: Type.Optional(Type.String({ description: 'Meta description.' })),
    language: Type.Optional(Type.String({ description: 'Declared document language: html lang, meta content-language, or the Content-Language header.' })),
    canonical: Type.Optional(Type.String({ description: 'Canonical URL (link rel=canonical).' })),
    ogTitle: Type.Optional(Type.String({ description: 'og:title.' })),
    ogDescription: Type.Optional(Type.String({ description: 'og:description.' })),
    ogImage: Type.Optional(Type.String({ description: 'og:image, absolute.' })),
    ogUrl: Type.Optional(Type.String({ description: 'og:url.' })),
    ogType: Type.Optional(Type.String({ description: 'og:type.' })),
    ogSiteName: Type.Optional(Type.String({ description: 'og:site_name.' })),
    statusCode: Type.Integer({ description: 'HTTP status of the page.' }),
    contentType: Type.String({ description: 'Content-Type of the page.' }),
  },
  { additionalProperties: true, description: 'Page metadata (description, language, canonical, status code, content type) and every og:* property of the page, camel-cased (og:site_name → ogSiteName; URL values absolute; ogLocaleAlternate is an array of strings).' },
);

const ScrapeInput = Type.Object({
  url: Url('Page to fetch (http or https).'),
  format: Type.Optional(
    Type.Union([Type.Literal('markdown'), Type.Literal('html'), Type.Literal('screenshot')], {
      description: 'markdown (default, GitHub-flavoured, absolute links), html, or screenshot (content is a temporary PNG URL).',
    }),
  ),
  cleaned: Type.Optional(Type.Boolean({ description: 'Main content only (article extraction), without navigation, ads and footers.' })),
  renderJs: Type.Optional(Type.Boolean({ description: 'Render JavaScript in a browser (default true); false is a plain, faster fetch.' })),
});

/** Output of `scrape_page` (spec §4.5). */
export const ScrapeOutput = Type.Object({
  title: Type.String({ description: 'Page title.' }),
  url: Type.String({ description: 'Final URL after redirects.' }),
  content: Type.String({ description: 'Markdown, HTML, or the temporary URL of the PNG screenshot.' }),
  metadata: Metadata,
  format: Type.String({ description: 'The format returned.' }),
  cleaned: Type.Boolean({ description: 'Whether only the main content was kept.' }),
});

export const scrapePage = defineCapability({
  id: 'scrape_page',
  title: 'Scrape a web page',
  summary: 'Fetch one page (rendering JavaScript by default) and return it as markdown, HTML or a screenshot, with its metadata.',
  tags: ['web', 'scrape', 'markdown', 'html', 'page', 'readability'],
  input: ScrapeInput,
  output: ScrapeOutput,
  cost: flat(10),
  validate: (i: Static<typeof ScrapeInput>) => checkUrl(i.url),
  messages: {
    url: URL_REQUIRED,
    format: "'format' must be one of: markdown, html, screenshot.",
    cleaned: "'cleaned' must be a boolean.",
    renderJs: "'renderJs' must be a boolean.",
  },
});

const CrawlInput = Type.Object({
  url: Url('Start URL; only pages of the same site are followed.'),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Most pages to return (default 5, max 100).' })),
  depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'Most link hops from the start URL (default 2).' })),
  format: Type.Optional(
    Type.Union([Type.Literal('markdown'), Type.Literal('text'), Type.Literal('raw')], { description: 'Page content: markdown (default), plain text, or raw HTML.' }),
  ),
});

/** One page of a crawl. */
export const CrawlPage = Type.Object({
  url: Type.String({ description: 'Page URL.' }),
  status: Type.Integer({ description: 'HTTP status of the page.' }),
  content: Type.String({ description: 'Page content in the requested format.' }),
});

/** Output of `crawl_site`. */
export const CrawlOutput = Type.Object({
  url: Type.String({ description: 'Start URL.' }),
  format: Type.String({ description: 'Content format.' }),
  depth: Type.Integer({ description: 'Depth used.' }),
  limit: Type.Integer({ description: 'Page limit used.' }),
  pages: Type.Integer({ description: 'Pages returned.' }),
  results: Type.Array(CrawlPage, { description: 'Crawled pages, closest to the start first.' }),
  creditUsage: Type.Integer({ description: 'Credits charged: 10 per page returned.' }),
});

/** Crawl input after defaults, as providers receive it. */
export type CrawlRequest = { url: string; limit: number; depth: number; format: 'markdown' | 'text' | 'raw' };

/** Fills the documented defaults (limit 5, depth 2, markdown). */
export function crawlDefaults(i: Static<typeof CrawlInput>): CrawlRequest {
  return { url: userUrl(i.url), limit: i.limit ?? 5, depth: i.depth ?? 2, format: i.format ?? 'markdown' };
}

/** Builds the `crawl_site` output from a provider's pages. */
export function crawlOutput(input: Static<typeof CrawlInput>, results: Static<typeof CrawlPage>[]): Static<typeof CrawlOutput> {
  const d = crawlDefaults(input);
  return { url: d.url, format: d.format, depth: d.depth, limit: d.limit, pages: results.length, results, creditUsage: results.length * CRAWL_CREDITS_PER_PAGE };
}

export const crawlSite = defineCapability({
  id: 'crawl_site',
  title: 'Crawl a site',
  summary: 'Follow same-site links from a start URL (robots.txt honoured) and return the content of each page; 10 credits per page returned.',
  tags: ['web', 'crawl', 'spider', 'site', 'links'],
  aliases: ['crawl'],
  input: CrawlInput,
  output: CrawlOutput,
  // Reserve for `limit` pages up front; charge only the pages actually returned (issue 4).
  cost: perUnit({ unit: 'pages', credits: CRAWL_CREDITS_PER_PAGE, max: (i: { limit?: number }) => i.limit ?? 5, note: '10 credits per page returned' }),
  validate: (i: Static<typeof CrawlInput>) => checkUrl(i.url),
  messages: {
    url: URL_REQUIRED,
    limit: "'limit' must be an integer between 1 and 100.",
    depth: "'depth' must be an integer between 0 and 10.",
    format: "'format' must be one of: markdown, text, raw.",
  },
});

const ScreenshotInput = Type.Object({
  url: Url('Page to capture.'),
  fullPage: Type.Optional(Type.Boolean({ description: 'Capture the whole scrollable page (default false: the viewport).' })),
  wait: Type.Optional(Type.Integer({ minimum: 0, maximum: 30000, description: 'Extra wait after load, in milliseconds (max 30000).' })),
  viewport: Type.Optional(
    Type.Object(
      {
        width: Type.Integer({ minimum: 100, maximum: 3840, description: 'Viewport width in CSS pixels.' }),
        height: Type.Integer({ minimum: 100, maximum: 2160, description: 'Viewport height in CSS pixels.' }),
      },
      { description: 'Browser viewport (default 1280×800).' },
    ),
  ),
});

/** Output of `screenshot`. */
export const ScreenshotOutput = Type.Object({
  url: Type.String({ description: 'Temporary URL of the image.' }),
  contentType: Type.String({ description: 'Image type, e.g. image/png.' }),
  expiresAt: Type.Optional(Type.String({ description: 'When the URL stops working (ISO 8601).' })),
  width: Type.Optional(Type.Integer({ description: 'Image width in pixels.' })),
  height: Type.Optional(Type.Integer({ description: 'Image height in pixels.' })),
  pageUrl: Type.Optional(Type.String({ description: 'Final URL of the captured page.' })),
  pageHeight: Type.Optional(Type.Integer({ description: 'With fullPage: height of the whole page in CSS pixels (more than `height` when clipped).' })),
  clipped: Type.Optional(
    Type.Boolean({ description: "With fullPage: true when the page was taller (or wider) than the provider's capture limit and the image shows only its top (own Chromium: WEB_SCREENSHOT_MAX_HEIGHT, default 16384 px, at widths up to 1280 px; wider captures get the same area)." }),
  ),
});

export const screenshot = defineCapability({
  id: 'screenshot',
  title: 'Screenshot a web page',
  summary: "Render a page in a browser and return a temporary URL to the image; the service's own Chromium by default, or crawler_a, shot_a, browser_a via `provider`.",
  tags: ['web', 'screenshot', 'image', 'browser', 'render', 'png'],
  input: ScreenshotInput,
  output: ScreenshotOutput,
  cost: flat(10),
  validate: (i: Static<typeof ScreenshotInput>) => checkUrl(i.url),
  messages: {
    url: URL_REQUIRED,
    fullPage: "'fullPage' must be a boolean.",
    wait: "'wait' must be an integer number of milliseconds between 0 and 30000.",
    viewport: "'viewport' must be an object with integer 'width' (100-3840) and 'height' (100-2160).",
  },
});

const ExtractInput = Type.Object({
  url: Url('Page to extract from.'),
  renderJs: Type.Optional(Type.Boolean({ description: 'Render JavaScript in a browser first (default true).' })),
});

/** Output of `extract_web`. */
export const ExtractOutput = Type.Object({
  url: Type.String({ description: 'Final URL after redirects.' }),
  title: Type.String({ description: 'Article or page title.' }),
  content: Type.String({ description: 'Main content as markdown.' }),
  text: Type.String({ description: 'Main content as plain text.' }),
  excerpt: Type.Optional(Type.String({ description: 'Short summary or lead paragraph.' })),
  byline: Type.Optional(Type.String({ description: 'Author line.' })),
  siteName: Type.Optional(Type.String({ description: 'Site name.' })),
  publishedTime: Type.Optional(Type.String({ description: 'Publication time when the page declares one.' })),
  metadata: Metadata,
  links: Type.Array(Type.String(), { description: 'Absolute links found in the main content.' }),
});

export const extractWeb = defineCapability({
  id: 'extract_web',
  title: 'Extract structured content from a web page',
  summary: 'Extract the main content (article text, title, author, date), metadata and links of a web page.',
  tags: ['extract', 'web', 'content', 'article', 'readability'],
  aliases: ['extract'],
  input: ExtractInput,
  output: ExtractOutput,
  cost: flat(10),
  validate: (i: Static<typeof ExtractInput>) => checkUrl(i.url),
  messages: { url: URL_REQUIRED, renderJs: "'renderJs' must be a boolean." },
});

export default [scrapePage, crawlSite, screenshot, extractWeb];
