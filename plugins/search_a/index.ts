/**
 * search_a (Serper-compatible search API, contracts §1): the ten provider endpoints of spec §4.10
 * (`search_a.search`, `news`, `places`, `maps`, `autocomplete`, `images`, `videos`, `shopping`,
 * `scholar`, `patents`) and the capabilities `engine_search`, `search_news`, `search_places` and
 * `engine_autocomplete` (spec §4.4, §4.9). The reference provider plugin other providers copy.
 */
import { Type, defineEndpoint, definePlugin, flat, type Implementation, type TSchema } from '../../core/sdk.js';
import { MAX_TIMEOUT_MS, serperCall, withoutCredits, type SerperEndpoint } from './client.js';
import { endpointExamples } from './examples.js';
import {
  AutocompleteInput,
  AutocompleteOutput,
  BasicInput,
  ImageItem,
  MapsInput,
  MapsItem,
  NewsItem,
  OrganicItem,
  PatentItem,
  PlaceItem,
  SafeInput,
  ScholarInput,
  ScholarItem,
  ShoppingItem,
  VideoItem,
  resultOf,
  searchExtras,
} from './schemas.js';

const config = {
  baseUrl: { env: 'SEARCH_A_BASE_URL', description: 'search_a API base URL.', default: 'https://google.serper.dev' },
  apiKey: { env: 'SEARCH_A_API_KEY', description: 'search_a API key (sent as X-API-KEY).', secret: true, required: true },
  timeoutMs: { env: 'SEARCH_A_TIMEOUT_MS', description: `Time allowed for one upstream call, ms (at most ${MAX_TIMEOUT_MS}).`, default: '15000' },
};

/** One provider endpoint: the input goes out as the JSON body, the payload comes back minus `credits`. */
function serperEndpoint(operation: SerperEndpoint, title: string, summary: string, tags: string[], input: TSchema, output: TSchema, credits = 10) {
  const fields = Object.keys((input as { properties?: object }).properties ?? {});
  return defineEndpoint({
    operation,
    title,
    summary,
    tags: ['search', 'engine', 'google', 'serp', ...tags],
    input,
    output,
    cost: flat(credits),
    examples: endpointExamples[operation],
    timeoutMs: MAX_TIMEOUT_MS + 5_000,
    messages: { q: "'q' parameter is required and must be a non-empty string." },
    async run(body: Record<string, unknown>, ctx) {
      // Only the documented parameters go upstream; extra fields in a v2 input are not forwarded.
      const params: Record<string, unknown> = Object.fromEntries(fields.filter((f) => f in body).map((f) => [f, body[f]]));
      // The schema accepts `GB` like the capabilities' `country`; the provider's codes are lower-case
      // (contracts §1), and doing it here treats direct endpoint calls and capability runs alike.
      if (typeof params.gl === 'string') params.gl = params.gl.toLowerCase();
      const raw = await serperCall(ctx, operation, params);
      ctx.setNative(raw);
      return withoutCredits(raw) as never;
    },
  });
}

const endpoints = [
  serperEndpoint('search', 'search_a web search', 'Organic web results with knowledge graph, answer box, related questions and searches.', ['web', 'organic'], BasicInput, resultOf('organic', OrganicItem, 'Organic results, best first.', searchExtras)),
  serperEndpoint('news', 'search_a news search', 'News articles for a query, with source, date and thumbnail.', ['news', 'articles'], SafeInput, resultOf('news', NewsItem, 'News articles, best first.')),
  serperEndpoint('places', 'search_a places search', 'Local businesses and places with address, coordinates, rating and phone.', ['places', 'local', 'business', 'maps'], BasicInput, resultOf('places', PlaceItem, 'Places, best first.')),
  serperEndpoint('maps', 'search_a maps search', 'Maps places around a position or by place ID, with types, opening hours and price level.', ['maps', 'places', 'local', 'gps'], MapsInput, resultOf('places', MapsItem, 'Places on the map.', { ll: Type.Optional(Type.String({ description: 'Map position and zoom used.' })) })),
  serperEndpoint('autocomplete', 'search_a autocomplete', 'Query suggestions for a prefix, as the search box offers them.', ['autocomplete', 'suggestions'], AutocompleteInput, AutocompleteOutput, 30),
  serperEndpoint('images', 'search_a image search', 'Images with sizes, thumbnails and the page they appear on.', ['images', 'pictures', 'photos'], SafeInput, resultOf('images', ImageItem, 'Images, best first.')),
  serperEndpoint('videos', 'search_a video search', 'Videos with duration, channel and thumbnail.', ['videos', 'video'], SafeInput, resultOf('videos', VideoItem, 'Videos, best first.')),
  serperEndpoint('shopping', 'search_a shopping search', 'Product offers with price, merchant and rating.', ['shopping', 'products', 'prices'], BasicInput, resultOf('shopping', ShoppingItem, 'Offers, best first.')),
  serperEndpoint('scholar', 'search_a scholar search', 'Scholarly articles with publication info, citations and PDF links.', ['scholar', 'papers', 'academic', 'citations'], ScholarInput, resultOf('organic', ScholarItem, 'Works, best first.')),
  serperEndpoint('patents', 'search_a patent search', 'Patents with dates, inventor, assignee and publication number.', ['patents', 'inventions'], BasicInput, resultOf('organic', PatentItem, 'Patents, best first.')),
];

/** Capability input (spec names) → provider parameters shared by all four capabilities (`gl` is lower-cased by the endpoint). */
function locale(i: { query: string; country?: string; language?: string; location?: string }) {
  return { q: i.query, gl: i.country, hl: i.language, location: i.location };
}

/** spec §4.9 `dateRange` → the provider's `tbs` time filter (contracts §1); `anyTime` sends none. */
export const DATE_RANGE_TBS: Record<string, string | undefined> = { anyTime: undefined, pastHour: 'qdr:h', pastDay: 'qdr:d', pastWeek: 'qdr:w', pastMonth: 'qdr:m', pastYear: 'qdr:y' };

const SEARCH_PARAMETER_KEYS = ['q', 'gl', 'hl', 'type', 'location', 'engine'];

const implementations: Implementation[] = [
  { capability: 'engine_search', endpoint: 'search', mapInput: (i) => ({ ...locale(i), page: i.page }) },
  { capability: 'search_news', endpoint: 'news', mapInput: (i) => ({ ...locale(i), page: i.page, tbs: i.dateRange ? DATE_RANGE_TBS[i.dateRange] : undefined }) },
  { capability: 'search_places', endpoint: 'places', mapInput: locale },
  {
    // spec §4.4: exactly `searchParameters` (q, gl, hl, type, location, engine) and `suggestions` [{ value }].
    capability: 'engine_autocomplete',
    endpoint: 'autocomplete',
    mapInput: locale,
    mapOutput: (o: { searchParameters: Record<string, unknown>; suggestions: { value: string }[] }) => ({
      searchParameters: Object.fromEntries(SEARCH_PARAMETER_KEYS.filter((k) => typeof o.searchParameters[k] === 'string').map((k) => [k, o.searchParameters[k]])),
      suggestions: o.suggestions.map((s) => ({ value: s.value })),
    }),
  },
];

export default definePlugin({
  id: 'search_a',
  apiVersion: 1,
  title: 'search_a (Serper-compatible search API)',
  summary: 'Search engine results: web, news, places, maps, autocomplete, images, videos, shopping, scholar and patents.',
  tags: ['search', 'engine', 'google', 'serp', 'news', 'places', 'provider'],
  config,
  endpoints,
  implements: implementations.map((impl) => {
    // Inputs are compacted so optional capability fields the caller left out are not sent as undefined.
    const mapInput = impl.mapInput!;
    return { ...impl, mapInput: (i: unknown) => Object.fromEntries(Object.entries(mapInput(i) as Record<string, unknown>).filter(([, v]) => v !== undefined)) };
  }),
});
