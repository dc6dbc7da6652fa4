/**
 * Prices of the search capabilities (issue 14, spec §8.1 units): one page of engine results is 30
 * credits; a web search that also scrapes its top results pays each page actually scraped as a
 * scrape (10, spec §8.1 "scrape"), a page that fails to scrape costs nothing.
 */
import type { CostRule } from '../sdk.js';

/** Credits of one page of web, news or places results. */
export const SEARCH_CREDITS = 30;
/** Credits of one scraped result (the price of `POST /api/v1/scrape`). */
export const SCRAPE_CREDITS = 10;
/** Results scraped when `scrapeResults` is set without `numResultsToScrape`. */
export const DEFAULT_RESULTS_TO_SCRAPE = 3;
/** The unit a search handler reports for each result it scraped successfully. */
export const SCRAPED_PAGES_UNIT = 'scraped_pages';

/** The scraping a web-search input asks for. */
export interface ScrapeRequest {
  scrapeResults?: boolean;
  numResultsToScrape?: number;
}

/** How many results the input asks to scrape (0 without `scrapeResults`). */
export function resultsToScrape(input: ScrapeRequest): number {
  return input.scrapeResults ? Math.min(Math.max(input.numResultsToScrape ?? DEFAULT_RESULTS_TO_SCRAPE, 1), 10) : 0;
}

/**
 * The web-search cost rule: reserve the search plus every page asked to be scraped, charge the
 * search plus the pages reported under {@link SCRAPED_PAGES_UNIT}.
 */
export const searchCost: CostRule<ScrapeRequest> = {
  describe: { kind: 'custom', note: `${SEARCH_CREDITS} credits per page of results, plus ${SCRAPE_CREDITS} per result scraped successfully with scrapeResults` },
  reserve: (input) => SEARCH_CREDITS + SCRAPE_CREDITS * resultsToScrape(input),
  settle: (input, units) => SEARCH_CREDITS + SCRAPE_CREDITS * Math.min(units[SCRAPED_PAGES_UNIT] ?? 0, resultsToScrape(input)),
};
