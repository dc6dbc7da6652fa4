/**
 * The scraping step of a web search with `scrapeResults` (issue 14): the top organic results are
 * scraped in parallel through the service's own `scrape_page` capability (`ctx.call`, so the
 * key's policy and the scrape lane's providers apply), each page scraped is reported as one
 * {@link SCRAPED_PAGES_UNIT} for the search's cost rule, and a page that fails carries `error`
 * and costs nothing. Any provider serving `engine_search` calls it after its own query.
 */
import { ServiceError, type RunContext } from '../sdk.js';
import { resultsToScrape, SCRAPED_PAGES_UNIT, type ScrapeRequest } from './search-cost.js';

/** A web-search input's scraping options. */
export interface ScrapeOptionsInput extends ScrapeRequest {
  scrapeOptions?: { format?: 'markdown' | 'html' | 'screenshot'; cleaned?: boolean; renderJs?: boolean };
}

/** What a scraped result carries: the scrape lane's output, or why it failed. */
export type ScrapeOutcomeValue = Record<string, unknown> & { error?: string };

/** Scrapes the first results asked for and returns them with `scrapeOutput`; the rest unchanged. */
export async function scrapeTopResults<T extends { link?: unknown }>(ctx: RunContext<any, any>, organic: T[], input: ScrapeOptionsInput): Promise<(T & { scrapeOutput?: ScrapeOutcomeValue })[]> {
  const n = resultsToScrape(input);
  if (n === 0) return organic;
  const { format, cleaned, renderJs } = input.scrapeOptions ?? {};
  const outcomes = await Promise.all(
    organic.slice(0, n).map(async (item): Promise<ScrapeOutcomeValue> => {
      if (typeof item.link !== 'string' || !item.link) return { error: 'The result has no link to scrape.' };
      try {
        const page = await ctx.call<Record<string, unknown>>('scrape_page', { url: item.link, ...(format ? { format } : {}), ...(cleaned !== undefined ? { cleaned } : {}), ...(renderJs !== undefined ? { renderJs } : {}) });
        ctx.usage.add(SCRAPED_PAGES_UNIT, 1);
        return page;
      } catch (err) {
        // The caller went away: the whole search is being abandoned, not this one page.
        if (ctx.signal.aborted) throw err;
        ctx.log.warn({ url: item.link, err }, 'search: scraping a result failed');
        return { error: err instanceof ServiceError ? err.message : 'Failed to scrape the page.' };
      }
    }),
  );
  return organic.map((item, i) => (i < outcomes.length ? { ...item, scrapeOutput: outcomes[i] } : item));
}
