/**
 * `batch_scrape` (issue 25): many pages with one set of `scrape_page` options, one result per
 * URL. A call answers at most 20 URLs; a job takes up to 1,000. Each page scraped costs what a
 * scrape costs (10 credits); a URL that fails is free.
 */
import { Type, defineCapability, perUnit, type Static, type TSchema } from '../sdk.js';
import { scrapePage, ScrapeOutput } from './web.js';
import { URL_REQUIRED, Url, checkUrl } from './web-url.js';

/** Credits per page scraped (the price of one `scrape_page`). */
export const BATCH_CREDITS_PER_PAGE = 10;
/** Most URLs of one synchronous batch. */
export const BATCH_SYNC_MAX = 20;
/** Most URLs of a batch run as a job. */
export const BATCH_JOB_MAX = 1000;

/**
 * The scrape options a batch takes: those of scrape_page that apply to every page alike, each
 * described once there. Page actions, cookies, location, waitForSelector, change-tracking tags
 * and the v1 spellings (format, cleaned) are left to single scrapes: with them, the batch tool's
 * schema alone would outweigh the room every agent's tool list has (issue 28's 80 KB).
 */
const BATCH_OPTIONS = ['formats', 'onlyMainContent', 'includeTags', 'excludeTags', 'renderJs', 'waitFor', 'timeout', 'mobile', 'headers', 'blockAds', 'maxAge', 'storeInCache', 'parsePDF', 'proxy'] as const;
const scrapeProps = scrapePage.input.properties as Record<string, TSchema>;
const scrapeFields = Object.fromEntries(BATCH_OPTIONS.map((k) => [k, { ...scrapeProps[k]!, description: 'See scrape_page.' }])) as Pick<typeof scrapePage.input.properties, (typeof BATCH_OPTIONS)[number]>;

const batchInput = (max: number) =>
  Type.Object({
    urls: Type.Array(Url('A page.'), { minItems: 1, maxItems: max, description: `Pages to scrape (1-${max}).` }),
    ...scrapeFields,
  });

const BatchInput = batchInput(BATCH_SYNC_MAX);
/** The input of a batch job: up to 1,000 URLs. */
export const BatchJobInput = batchInput(BATCH_JOB_MAX);
/** `batch_scrape` input (either size). */
export type BatchScrapeInput = Static<typeof BatchJobInput>;

/** One URL's outcome. */
export const BatchItem = Type.Object({
  url: Type.String({ description: 'The URL as given.' }),
  status: Type.Union([Type.Literal('completed'), Type.Literal('failed')], { description: 'completed (charged) or failed (free).' }),
  data: Type.Optional(Type.Object(ScrapeOutput.properties, { description: 'The page as scrape_page answers it (completed items).' })),
  error: Type.Optional(Type.Object({ code: Type.String({ description: 'Failure code, as a scrape_page call would answer.' }), message: Type.String({ description: 'Why the page failed.' }) }, { description: 'Why this URL failed.' })),
});
/** One batch result item. */
export type BatchItemType = Static<typeof BatchItem>;

/** Output of a synchronous `batch_scrape`. */
export const BatchOutput = Type.Object({
  results: Type.Array(BatchItem, { description: 'One item per URL, in the order given.' }),
  completed: Type.Integer({ description: 'Pages scraped.' }),
  failed: Type.Integer({ description: 'URLs that failed (not charged).' }),
  creditUsage: Type.Integer({ description: 'Credits charged: 10 per page scraped, plus 5 per page read by OCR (a scanned document behind a URL).' }),
});

/** Every URL checked, then the scrape options as scrape_page checks them. */
function checkBatch(i: BatchScrapeInput): string | undefined {
  for (const [n, url] of i.urls.entries()) {
    const err = checkUrl(url);
    if (err) return err === URL_REQUIRED ? `'urls' item ${n + 1} must be a non-empty string.` : `'urls' item ${n + 1}: ${err}`;
  }
  const { urls, ...options } = i;
  return scrapePage.validate?.({ ...options, url: urls[0]! } as never);
}

const scrapeMessages = Object.fromEntries(BATCH_OPTIONS.map((k) => [k, scrapePage.messages?.[k] ?? `'${k}' is invalid.`]));

export const batchScrape = defineCapability({
  id: 'batch_scrape',
  title: 'Scrape many pages',
  summary: 'Scrape up to 20 URLs (1,000 as a job) alike; one result per URL; 10 credits per page scraped, failures free.',
  tags: ['web', 'scrape', 'batch', 'markdown', 'pages'],
  input: BatchInput,
  jobInput: BatchJobInput as TSchema,
  jobMessages: { urls: `'urls' must be a list of 1 to ${BATCH_JOB_MAX} URLs.` },
  output: BatchOutput,
  cost: perUnit({ unit: 'pages', credits: BATCH_CREDITS_PER_PAGE, max: (i: { urls?: unknown[] }) => i.urls?.length ?? 1, note: '10 credits per page scraped; failed URLs are free' }),
  validate: checkBatch,
  messages: { urls: `'urls' must be a list of 1 to ${BATCH_SYNC_MAX} URLs.`, ...scrapeMessages },
  jobOutput: (_input, items) => {
    const results = items.map((i) => i.result as BatchItemType);
    const completed = results.filter((r) => r.status === 'completed').length;
    // What the items were charged, OCR pages included (not completed × 10).
    return { results, completed, failed: results.length - completed, creditUsage: items.reduce((sum, i) => sum + i.credits, 0) };
  },
});
