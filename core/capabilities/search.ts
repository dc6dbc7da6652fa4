/** Search-engine capabilities (spec §4.4, §4.9, §4.10). Implemented by search providers (search_a, seo_a). */
import { Type, defineCapability, flat, perUnit } from '../sdk-base.js';
import { AnyObject } from './common.js';

// `\S`: a query of only whitespace is "missing" (spec §4.4 `query parameter is required`), so it is
// rejected before credits are reserved or a provider is called.
const Query = Type.String({ description: 'Search query (at least one non-space character).', minLength: 1, maxLength: 2048, pattern: '\\S' });
const Country = Type.Optional(Type.String({ description: 'Two-letter country code, ISO 3166-1 alpha-2 (forwarded lower-cased as gl), e.g. us, gb.', minLength: 2, maxLength: 2, pattern: '^[A-Za-z]{2}$' }));
const Language = Type.Optional(Type.String({ description: 'Interface language code (forwarded as hl), e.g. en, de, pt-br.', minLength: 2, maxLength: 10, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$' }));
const Location = Type.Optional(Type.String({ description: 'Location to bias results, in the canonical form listed by GET /api/v1/engine-locations (e.g. "London,England,United Kingdom").', minLength: 1, maxLength: 200 }));
const Page = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '1-based page.' }));

/** The request echo every search result carries (q, gl, hl, type, engine, location…). */
const SearchParameters = Type.Object({ q: Type.String({ description: 'Query as searched.' }) }, { additionalProperties: true, description: 'Parameters the engine used (q, gl, hl, type, location, engine, tbs, page).' });
/** A search output: the request echo plus one required result array (provider item shapes, extra fields kept). */
function results(key: string, description: string) {
  return Type.Object(
    { searchParameters: SearchParameters, [key]: Type.Array(Type.Object({}, { additionalProperties: true }), { description }) },
    { additionalProperties: true, description: 'Search results in the provider shape (without the provider-side credit count).' },
  );
}

export const engineSearch = defineCapability({
  id: 'engine_search',
  title: 'Web search',
  summary: 'Organic web search results from a search engine.',
  tags: ['search', 'web', 'serp', 'google', 'engine'],
  input: Type.Object({ query: Query, country: Country, language: Language, location: Location, page: Page }),
  output: results('organic', 'Organic results, best first (title, link, snippet, position…).'),
  cost: flat(10),
  messages: { query: 'query parameter is required' },
  examples: [{ title: 'Web results for a company, in English from the US', input: { query: 'apple inc', country: 'us', language: 'en' } }],
});

export const searchNews = defineCapability({
  id: 'search_news',
  title: 'News search',
  summary: 'Recent news articles for a query, optionally limited to a date range.',
  tags: ['search', 'news', 'articles', 'engine'],
  input: Type.Object({
    query: Query,
    dateRange: Type.Optional(Type.Union(['anyTime', 'pastHour', 'pastDay', 'pastWeek', 'pastMonth', 'pastYear'].map((v) => Type.Literal(v)), { description: 'How recent the articles must be.' })),
    country: Country,
    language: Language,
    location: Location,
    page: Page,
  }),
  output: results('news', 'News articles, best first (title, link, snippet, date, source, imageUrl, position).'),
  cost: flat(10),
  messages: { query: 'query parameter is required' },
  examples: [{ title: 'UK news from the past week', input: { query: 'renewable energy', dateRange: 'pastWeek', country: 'gb' } }],
});

export const searchPlaces = defineCapability({
  id: 'search_places',
  title: 'Places search',
  summary: 'Local businesses and places matching a query.',
  tags: ['search', 'places', 'maps', 'local', 'business'],
  input: Type.Object({ query: Query, country: Country, language: Language, location: Location }),
  output: results('places', 'Places, best first (title, address, latitude, longitude, rating, category, phoneNumber, website, cid).'),
  cost: flat(10),
  messages: { query: 'query parameter is required' },
  examples: [{ title: 'Coffee shops in a city', input: { query: 'coffee shops', location: 'Austin,Texas,United States' } }],
});

export const getEngineReviews = defineCapability({
  id: 'get_engine_reviews',
  title: 'Business reviews',
  summary: "Reviews of a business from a search engine's maps data, by name, CID or place ID.",
  tags: ['reviews', 'maps', 'business', 'places', 'ratings'],
  input: Type.Object({
    keyword: Type.Optional(Type.String({ description: 'Business name or query.', minLength: 1 })),
    cid: Type.Optional(Type.String({ description: 'Maps client ID of a business.', minLength: 1 })),
    placeId: Type.Optional(Type.String({ description: 'Maps place ID.', minLength: 1 })),
    reviews: Type.Optional(Type.Integer({ minimum: 1, maximum: 4490, description: 'Reviews to fetch (default 10, max 4490).' })),
    sortBy: Type.Optional(Type.Union(['relevant', 'newest', 'highest_rating', 'lowest_rating'].map((v) => Type.Literal(v)), { description: 'Order of reviews.' })),
    language: Type.Optional(Type.String({ description: 'Language code (default en).' })),
    location: Type.Optional(Type.String({ description: 'Location bias for keyword search.' })),
  }),
  output: AnyObject,
  cost: perUnit({ unit: 'reviews', credits: 50, per: 10, max: (i: { reviews?: number }) => i.reviews ?? 10, note: '50 credits per 10 reviews, rounded up' }),
  validate: (i) => (i.keyword || i.cid || i.placeId ? undefined : 'Either keyword, cid, or placeId must be provided'),
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

export default [engineSearch, searchNews, searchPlaces, getEngineReviews, engineAutocomplete, engineLocations];
