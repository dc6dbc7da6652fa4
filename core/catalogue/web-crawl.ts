/**
 * `crawl_site` (spec §4.9, §4.10; issues 4 and 25): the input every crawler provider maps from,
 * the output they all map onto, and its price. One call returns at most 100 pages; as a job
 * (`jobInput`) a crawl may ask for 10,000.
 */
import { Type, defineCapability, perUnit, type Static, type TSchema } from '../sdk.js';
import { URL_REQUIRED, Url, checkUrl, userUrl } from './web-url.js';
import { PathPatterns, checkPathLists, pathPatternsMessage } from './web-paths.js';

/** Credits per crawled page returned (issue 4: "cost per crawled page (10 credits)"). */
export const CRAWL_CREDITS_PER_PAGE = 10;
/** Most pages of one synchronous crawl. */
export const CRAWL_SYNC_MAX = 100;
/** Most pages of a crawl run as a job (issue 25). */
export const CRAWL_JOB_MAX = 10_000;

/** How a crawl or a map uses the site's sitemaps. */
export const SitemapMode = Type.Union([Type.Literal('include'), Type.Literal('skip'), Type.Literal('only')], {
  description: 'Sitemap URLs: include (default), skip, or only them.',
});

const crawlFields = (maxLimit: number) => ({
  url: Url('Start URL (same-site pages only).'),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxLimit, description: `Most pages (default 5, max ${maxLimit}).` })),
  depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'Most link hops (default 2).' })),
  format: Type.Optional(
    Type.Union([Type.Literal('markdown'), Type.Literal('text'), Type.Literal('raw')], { description: 'markdown (default), text or raw HTML.' }),
  ),
  includePaths: Type.Optional(PathPatterns('Only paths matching one of these.')),
  excludePaths: Type.Optional(PathPatterns('Skip paths matching one of these.')),
  allowSubdomains: Type.Optional(Type.Boolean({ description: 'Follow subdomains too (default false).' })),
  ignoreQueryParameters: Type.Optional(Type.Boolean({ description: 'Ignore URL queries (default false).' })),
  sitemap: Type.Optional(SitemapMode),
});

const CrawlInput = Type.Object(crawlFields(CRAWL_SYNC_MAX));
/** The input of a crawl job: the same fields, up to 10,000 pages. */
export const CrawlJobInput = Type.Object(crawlFields(CRAWL_JOB_MAX));

/** `crawl_site` input as the capability declares it. */
export type CrawlInputType = Static<typeof CrawlJobInput>;

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
export type CrawlRequest = {
  url: string;
  limit: number;
  depth: number;
  format: 'markdown' | 'text' | 'raw';
  includePaths: string[];
  excludePaths: string[];
  allowSubdomains: boolean;
  ignoreQueryParameters: boolean;
  sitemap: 'include' | 'skip' | 'only';
};

/** Fills the documented defaults (limit 5, depth 2, markdown, sitemap include, no path rules). */
export function crawlDefaults(i: CrawlInputType): CrawlRequest {
  return {
    url: userUrl(i.url),
    limit: i.limit ?? 5,
    depth: i.depth ?? 2,
    format: i.format ?? 'markdown',
    includePaths: i.includePaths ?? [],
    excludePaths: i.excludePaths ?? [],
    allowSubdomains: i.allowSubdomains ?? false,
    ignoreQueryParameters: i.ignoreQueryParameters ?? false,
    sitemap: i.sitemap ?? 'include',
  };
}

/** Builds the `crawl_site` output from a provider's pages. */
export function crawlOutput(input: CrawlInputType, results: Static<typeof CrawlPage>[]): Static<typeof CrawlOutput> {
  const d = crawlDefaults(input);
  return { url: d.url, format: d.format, depth: d.depth, limit: d.limit, pages: results.length, results, creditUsage: results.length * CRAWL_CREDITS_PER_PAGE };
}

const crawlMessages = (maxLimit: number) => ({
  url: URL_REQUIRED,
  limit: `'limit' must be an integer between 1 and ${maxLimit}.`,
  depth: "'depth' must be an integer between 0 and 10.",
  format: "'format' must be one of: markdown, text, raw.",
  includePaths: pathPatternsMessage('includePaths'),
  excludePaths: pathPatternsMessage('excludePaths'),
  allowSubdomains: "'allowSubdomains' must be a boolean.",
  ignoreQueryParameters: "'ignoreQueryParameters' must be a boolean.",
  sitemap: "'sitemap' must be one of: include, skip, only.",
});

export const crawlSite = defineCapability({
  id: 'crawl_site',
  title: 'Crawl a site',
  summary: 'Follow same-site links and sitemap URLs from a start URL (robots.txt honoured) and return each page; 10 credits per page returned.',
  tags: ['web', 'crawl', 'spider', 'site', 'links'],
  aliases: ['crawl'],
  input: CrawlInput,
  jobInput: CrawlJobInput as TSchema,
  jobMessages: { limit: crawlMessages(CRAWL_JOB_MAX).limit },
  output: CrawlOutput,
  // Reserve for `limit` pages up front; charge only the pages actually returned (issue 4).
  cost: perUnit({ unit: 'pages', credits: CRAWL_CREDITS_PER_PAGE, max: (i: { limit?: number }) => i.limit ?? 5, note: '10 credits per page returned' }),
  validate: (i: CrawlInputType) => checkUrl(i.url) ?? checkPathLists(i),
  messages: crawlMessages(CRAWL_SYNC_MAX),
  // A crawl leaves failed pages out (only a failed start page is an item, and the synchronous call fails then).
  jobOutput: (input: CrawlInputType, items) => crawlOutput(input, items.filter((i) => !i.failed).map((i) => i.result as Static<typeof CrawlPage>)),
});
