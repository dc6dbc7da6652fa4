/**
 * Search-engine capabilities (spec §4.4, §4.9, §4.10; issue 14): web, news, places and maps search,
 * autocomplete, reviews, keyword ideas, answers and the location list. Implemented by search
 * providers (search_a, seo_a, answer_a, locations). The v1 body is the capability input, so the
 * field names here are the original service's (`query`, `country`, `dateRange`, `gpsPositionZoom`…).
 */
import { Type, defineCapability, flat, perUnit } from '../sdk.js';
import { searchCost, SEARCH_CREDITS } from './search-cost.js';
import { ReviewsOutput } from './search-reviews.js';

export * from './search-cost.js';
export * from './search-reviews.js';
export * from './search-locale.js';
export * from './search-answers.js';
export * from './search-scrape.js';
import { answerQuestion, keywordIdeas } from './search-answers.js';

// `\S`: a query of only whitespace is "missing" (spec §4.4 `query parameter is required`), so it is
// rejected before credits are reserved or a provider is called.
const Query = Type.String({ description: 'Search query (at least one non-space character).', minLength: 1, maxLength: 2048, pattern: '\\S' });
// Automation platforms send locale forms (issue 14: `pt-BR` as a country means Brazil); providers
// reduce them with `countryCode` / `languageCode` (search-locale.ts).
const Country = Type.Optional(Type.String({ description: 'Country, ISO 3166-1 alpha-2 (e.g. us, gb), or a locale whose region is the country (pt-BR → br); forwarded lower-cased as gl.', minLength: 2, maxLength: 10, pattern: '^([A-Za-z]{2,3}[-_])?[A-Za-z]{2}$' }));
const Language = Type.Optional(Type.String({ description: 'Interface language code, with an optional region (en, de, zh-TW, pt-BR); forwarded as hl.', minLength: 2, maxLength: 10, pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$' }));
const Location = Type.Optional(Type.String({ description: 'Location to bias results, in the canonical form listed by GET /api/v1/engine-locations (e.g. "London,England,United Kingdom").', minLength: 1, maxLength: 200 }));
const Page = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '1-based page of results (each page is charged).' }));
const DATE_RANGES = ['anyTime', 'pastHour', 'pastDay', 'pastWeek', 'pastMonth', 'pastYear'];
const DateRange = Type.Optional(Type.Union(DATE_RANGES.map((v) => Type.Literal(v)), { description: 'How recent the results must be (default anyTime).' }));
const Str = (description: string) => Type.Optional(Type.String({ description }));

/** The request echo every result carries (q, gl, hl, type, engine, location…). */
const SearchParameters = Type.Object({ q: Type.String({ description: 'Query as searched.' }) }, { additionalProperties: true, description: 'Parameters the engine used (q, gl, hl, type, location, engine, tbs, page).' });
/** A search output: the request echo plus one required result array (provider item shapes, extra fields kept). */
function results(key: string, description: string) {
  return Type.Object(
    { searchParameters: SearchParameters, [key]: Type.Array(Type.Object({}, { additionalProperties: true, description: 'One result.' }), { description }) },
    { additionalProperties: true, description: 'Search results in the provider shape (without the provider-side credit count).' },
  );
}

/** `scrapeOptions` of a web search: how each scraped result is returned (the scrape lane's own options). */
const ScrapeOptions = Type.Object(
  {
    format: Type.Optional(Type.Union([Type.Literal('markdown'), Type.Literal('html'), Type.Literal('screenshot')], { description: 'Format of each scraped page: markdown (default), html, or screenshot.' })),
    cleaned: Type.Optional(Type.Boolean({ description: 'Keep only the main content of each page (as POST /api/v1/scrape).' })),
    renderJs: Type.Optional(Type.Boolean({ description: 'Render JavaScript in a browser (default true, as POST /api/v1/scrape); false is faster.' })),
  },
  { description: 'How the top results are scraped (as POST /api/v1/scrape).' },
);

/** What a scraped result carries: the scrape output, or why it failed (spec §4.5 shape). */
export const ScrapeOutcome = Type.Object(
  {
    title: Str('Page title.'),
    url: Str('Final URL.'),
    content: Str('Page content in the requested format.'),
    format: Str('Format returned.'),
    cleaned: Type.Optional(Type.Boolean({ description: 'Whether only the main content was kept.' })),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Page metadata (as POST /api/v1/scrape).' })),
    error: Str('Why this page could not be scraped (it is not charged).'),
  },
  { description: 'The scraped page, or `error` when it could not be scraped.' },
);

/** Input of `engine_search` (v1 `POST /api/v1/search`). */
export const EngineSearchInput = Type.Object({
  query: Query,
  country: Country,
  location: Location,
  language: Language,
  dateRange: DateRange,
  page: Page,
  scrapeResults: Type.Optional(Type.Boolean({ description: 'Also scrape the top organic results through the service scrape lane (10 credits per page scraped; default false).' })),
  numResultsToScrape: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'How many top results to scrape (default 3, max 10).' })),
  scrapeOptions: Type.Optional(ScrapeOptions),
});

/** An organic web result (the shape; `scrapeOutput` only with `scrapeResults`). */
const OrganicResult = Type.Object(
  {
    title: Type.String({ description: 'Page title.' }),
    link: Type.String({ description: 'Page URL.' }),
    snippet: Type.String({ description: 'Text excerpt.' }),
    position: Type.Integer({ description: '1-based rank.' }),
    sitelinks: Type.Optional(Type.Array(Type.Object({ title: Str('Sitelink title.'), link: Str('Sitelink URL.') }, { additionalProperties: true, description: 'A deep link.' }), { description: 'Deep links under the result.' })),
    date: Str('Date shown with the result.'),
    scrapeOutput: Type.Optional(ScrapeOutcome),
  },
  { description: 'An organic result.' },
);

/** Output of `engine_search` (v1 `POST /api/v1/search`). */
export const EngineSearchOutput = Type.Object(
  {
    searchParameters: SearchParameters,
    organic: Type.Array(OrganicResult, { description: 'Organic results, best first.' }),
    featuredSnippet: Type.Optional(Type.Object({ title: Str('Title.'), answer: Str('Direct answer.'), snippet: Str('Snippet.'), link: Str('Source URL.') }, { additionalProperties: true, description: 'The direct answer shown above the results.' })),
    relatedSearches: Type.Optional(Type.Array(Type.Object({ query: Type.String({ description: 'Related query.' }) }), { description: 'Related searches.' })),
    peopleAlsoAsk: Type.Optional(Type.Array(Type.Object({ question: Type.String({ description: 'Question.' }), snippet: Str('Answer excerpt.'), title: Str('Source title.'), link: Str('Source URL.') }), { description: 'Related questions.' })),
  },
  { description: 'Web search results.' },
);

export const engineSearch = defineCapability({
  id: 'engine_search',
  title: 'Web search',
  summary: 'Organic web search results from a search engine, optionally with the top results scraped.',
  tags: ['search', 'web', 'serp', 'google', 'engine', 'scrape'],
  input: EngineSearchInput,
  output: EngineSearchOutput,
  cost: searchCost,
  messages: { query: 'query parameter is required' },
  examples: [
    { title: 'Web results for a company, in English from the US', input: { query: 'apple inc', country: 'us', language: 'en' } },
    { title: 'Past week, with the top two results scraped as markdown', input: { query: 'typescript release notes', dateRange: 'pastWeek', scrapeResults: true, numResultsToScrape: 2, scrapeOptions: { format: 'markdown', cleaned: true } } },
  ],
});

export const searchNews = defineCapability({
  id: 'search_news',
  title: 'News search',
  summary: 'Recent news articles for a query, optionally limited to a date range.',
  tags: ['search', 'news', 'articles', 'engine'],
  input: Type.Object({ query: Query, dateRange: DateRange, country: Country, language: Language, location: Location, page: Page }),
  output: results('news', 'News articles, best first (title, link, snippet, date, source, imageUrl, position).'),
  // One engine query, priced like web and places search (issue 14: "decide and document its cost").
  cost: flat(SEARCH_CREDITS),
  messages: { query: 'query parameter is required' },
  examples: [{ title: 'UK news from the past week', input: { query: 'renewable energy', dateRange: 'pastWeek', country: 'gb' } }],
});

export const searchPlaces = defineCapability({
  id: 'search_places',
  title: 'Places search',
  summary: 'Local businesses and places matching a query.',
  tags: ['search', 'places', 'maps', 'local', 'business'],
  input: Type.Object({ query: Query, country: Country, language: Language, location: Location, page: Page }),
  output: results('places', 'Places, best first (title, address, latitude, longitude, rating, category, phoneNumber, website, cid).'),
  cost: flat(SEARCH_CREDITS),
  messages: { query: 'query parameter is required' },
  examples: [{ title: 'Coffee shops in a city', input: { query: 'coffee shops', location: 'Austin,Texas,United States' } }],
});

/** Credits of one page of maps results (issue 14: `search-maps`, 100 per page). */
export const MAPS_CREDITS = 100;

export const searchMaps = defineCapability({
  id: 'search_maps',
  title: 'Maps search',
  summary: 'Places on the map around a GPS position, or one place by place ID or CID, with types, hours and price level.',
  tags: ['search', 'maps', 'places', 'gps', 'local', 'business'],
  input: Type.Object({
    query: Query,
    gpsPositionZoom: Type.Optional(Type.String({ description: 'Map position and zoom, "@<lat>,<lng>,<zoom>z" (the @ and z may be left out), e.g. "@40.7128,-74.006,14z".', pattern: '^@?-?\\d+(\\.\\d+)?,\\s*-?\\d+(\\.\\d+)?,\\s*\\d+(\\.\\d+)?z?$' })),
    placeId: Type.Optional(Type.String({ description: 'Place ID of a single place.', minLength: 1 })),
    cid: Type.Optional(Type.String({ description: 'Maps client ID (CID) of a single place.', minLength: 1 })),
    country: Country,
    language: Language,
    page: Page,
  }),
  output: results('places', 'Places on the map (title, address, latitude, longitude, rating, type, types, placeId, openingHours, priceLevel…).'),
  cost: flat(MAPS_CREDITS),
  messages: { query: 'query parameter is required', gpsPositionZoom: "'gpsPositionZoom' must look like @40.7128,-74.006,14z." },
  examples: [{ title: 'Pizza around a map position', input: { query: 'pizza', gpsPositionZoom: '@40.7128,-74.006,14z' } }],
});

export const getEngineReviews = defineCapability({
  id: 'get_engine_reviews',
  title: 'Business reviews',
  summary: "Reviews of a business from a search engine's maps data, by name, CID or place ID.",
  tags: ['reviews', 'maps', 'business', 'places', 'ratings'],
  input: Type.Object({
    keyword: Type.Optional(Type.String({ description: 'Business name or query.', minLength: 1, maxLength: 700 })),
    cid: Type.Optional(Type.String({ description: 'Maps client ID of a business.', minLength: 1, maxLength: 100 })),
    placeId: Type.Optional(Type.String({ description: 'Maps place ID.', minLength: 1, maxLength: 300 })),
    reviews: Type.Optional(Type.Integer({ minimum: 1, maximum: 4490, description: 'Reviews to fetch (default 10, max 4490); charged on the number returned.' })),
    sortBy: Type.Optional(Type.Union(['relevant', 'newest', 'highest_rating', 'lowest_rating'].map((v) => Type.Literal(v)), { description: 'Order of reviews (default relevant).' })),
    language: Type.Optional(Type.String({ description: 'Language code (default en); a region form such as pt-BR is accepted.', pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$' })),
    location: Type.Optional(Type.String({ description: 'Location bias for keyword search (default "London,England,United Kingdom"), as listed by GET /api/v1/engine-locations.', minLength: 1, maxLength: 200 })),
  }),
  output: ReviewsOutput,
  // spec §8.1: 50 per started 10 reviews returned; reserved for the number asked.
  cost: perUnit({ unit: 'reviews', credits: 50, per: 10, max: (i: { reviews?: number }) => i.reviews ?? 10, note: '50 credits per 10 reviews returned, rounded up (0 reviews cost nothing)' }),
  validate: (i) => (i.keyword || i.cid || i.placeId ? undefined : 'Either keyword, cid, or placeId must be provided'),
  examples: [{ title: 'Newest 20 reviews of a shop in London', input: { keyword: 'hedonism wines', reviews: 20, sortBy: 'newest' } }],
});

export const engineAutocomplete = defineCapability({
  id: 'engine_autocomplete',
  title: 'Search autocomplete',
  summary: 'Query suggestions as a search engine would offer them.',
  tags: ['search', 'autocomplete', 'suggestions'],
  visibility: 'legacy',
  input: Type.Object({ query: Query, location: Location, country: Country, language: Language }),
  output: Type.Object({
    searchParameters: Type.Object({}, { additionalProperties: true, description: 'Parameters used (q, gl, hl, type, location, engine).' }),
    suggestions: Type.Array(Type.Object({ value: Type.String({ description: 'A suggested query.' }) }), { description: 'Suggestions, best first.' }),
  }),
  cost: flat(30),
  messages: { query: 'query parameter is required' },
  examples: [{ title: 'Suggestions for a prefix, UK English', input: { query: 'how to learn', country: 'gb', language: 'en' } }],
});

export const engineLocations = defineCapability({
  id: 'engine_locations',
  title: 'Supported search locations',
  summary: 'Locations accepted by the search operations, with country codes; optional name filter.',
  tags: ['search', 'locations'],
  visibility: 'legacy',
  input: Type.Object({
    q: Type.Optional(Type.String({ description: 'Case- and accent-insensitive substring of the short or the canonical name (e.g. london, texas, "London,England").', maxLength: 200 })),
    countryCode: Type.Optional(Type.String({ description: 'Only locations in this country (ISO 3166-1 alpha-2, e.g. GB).', pattern: '^[A-Za-z]{2}$' })),
    type: Type.Optional(Type.String({ description: 'Only locations of this type: Country, State, Province, Region or City (case-insensitive).', minLength: 1, maxLength: 40 })),
  }),
  output: Type.Object({
    locations: Type.Array(
      Type.Object({
        name: Type.String({ description: 'Short name, e.g. London.' }),
        canonicalName: Type.String({ description: 'Name to pass as `location`, e.g. "London,England,United Kingdom".' }),
        countryCode: Type.String({ description: 'ISO 3166-1 alpha-2 country code (pass lower-cased as `country`).' }),
        type: Type.String({ description: 'Country, State, Province, Region or City.' }),
      }),
      { description: 'Matching locations: countries, then subdivisions, then cities, each by name.' },
    ),
    total: Type.Integer({ description: 'Number of matching locations.' }),
  }),
  cost: flat(0),
});

export default [engineSearch, searchNews, searchPlaces, searchMaps, getEngineReviews, keywordIdeas, answerQuestion, engineAutocomplete, engineLocations];
