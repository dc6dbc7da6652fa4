/**
 * search_a (Serper-compatible search API, contracts §1): the ten provider endpoints of spec §4.10
 * (`search_a.search`, `news`, `places`, `maps`, `autocomplete`, `images`, `videos`, `shopping`,
 * `scholar`, `patents`) and the capabilities `engine_search`, `search_news`, `search_places`,
 * `search_maps` and `engine_autocomplete` (spec §4.4, §4.9; issue 14).
 */
import { Type, defineEndpoint, definePlugin, flat, type CostRule, type TSchema } from '../../core/sdk.js';
import { MAPS_CREDITS, SEARCH_CREDITS, scrapeTopResults, searchCost } from '../../core/catalogue.js';
import { MAX_TIMEOUT_MS, serperCall, withoutCredits, type SerperEndpoint } from './client.js';
import { endpointExamples } from './examples.js';
import { implementations } from './capabilities.js';
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
  SearchInput,
  SERVICE_SIDE_FIELDS,
  ShoppingItem,
  VideoItem,
  resultOf,
  searchExtras,
} from './schemas.js';

const config = {
  baseUrl: { type: 'url', description: 'search_a API base URL.', default: 'https://google.serper.dev' },
  apiKey: { type: 'secret', description: 'search_a API key (sent as X-API-KEY).', required: true },
  timeoutMs: { type: 'integer', description: `Time allowed for one upstream call, ms (100 to ${MAX_TIMEOUT_MS}).`, min: 100, max: MAX_TIMEOUT_MS, default: 15_000 },
} as const;

/** One provider endpoint: the documented input fields go out as the JSON body, the payload comes back minus `credits`. */
function serperEndpoint(operation: SerperEndpoint, title: string, summary: string, tags: string[], input: TSchema, output: TSchema, cost: CostRule = flat(SEARCH_CREDITS)) {
  const fields = Object.keys((input as { properties?: object }).properties ?? {}).filter((f) => !SERVICE_SIDE_FIELDS.includes(f));
  return defineEndpoint({
    operation,
    title,
    summary,
    tags: ['search', 'engine', 'google', 'serp', ...tags],
    input,
    output,
    cost,
    // Every one is a provider endpoint of spec §4.10, autocomplete too (its capability is v1-only).
    visibility: 'public',
    examples: endpointExamples[operation],
    // The upstream call is bounded by SEARCH_A_TIMEOUT_MS; a web search may also scrape pages.
    timeoutMs: operation === 'search' ? 120_000 : MAX_TIMEOUT_MS + 5_000,
    messages: { q: "'q' parameter is required and must be a non-empty string." },
    async run(body: Record<string, unknown>, ctx) {
      const params: Record<string, unknown> = Object.fromEntries(fields.filter((f) => body[f] !== undefined).map((f) => [f, body[f]]));
      // The provider's codes are lower-case (contracts §1); `GB` is accepted like the capabilities' `country`.
      if (typeof params.gl === 'string') params.gl = params.gl.toLowerCase();
      const raw = await serperCall(ctx, operation, params);
      ctx.setNative(raw);
      const out = withoutCredits(raw) as Record<string, unknown>;
      if (operation === 'search' && body.scrapeResults && Array.isArray(out.organic)) out.organic = await scrapeTopResults(ctx, out.organic as { link?: unknown }[], body);
      return out as never;
    },
  });
}

const endpoints = [
  serperEndpoint('search', 'search_a web search', 'Organic web results with knowledge graph, answer box, related questions and searches; optionally the top results scraped.', ['web', 'organic'], SearchInput, resultOf('organic', OrganicItem, 'Organic results, best first.', searchExtras), searchCost as CostRule),
  serperEndpoint('news', 'search_a news search', 'News articles for a query, with source, date and thumbnail.', ['news', 'articles'], SafeInput, resultOf('news', NewsItem, 'News articles, best first.')),
  serperEndpoint('places', 'search_a places search', 'Local businesses and places with address, coordinates, rating and phone.', ['places', 'local', 'business', 'maps'], BasicInput, resultOf('places', PlaceItem, 'Places, best first.')),
  serperEndpoint('maps', 'search_a maps search', 'Maps places around a position or by place ID, with types, opening hours and price level.', ['maps', 'places', 'local', 'gps'], MapsInput, resultOf('places', MapsItem, 'Places on the map.', { ll: Type.Optional(Type.String({ description: 'Map position and zoom used.' })) }), flat(MAPS_CREDITS)),
  serperEndpoint('autocomplete', 'search_a autocomplete', 'Query suggestions for a prefix, as the search box offers them.', ['autocomplete', 'suggestions'], AutocompleteInput, AutocompleteOutput),
  serperEndpoint('images', 'search_a image search', 'Images with sizes, thumbnails and the page they appear on.', ['images', 'pictures', 'photos'], SafeInput, resultOf('images', ImageItem, 'Images, best first.')),
  serperEndpoint('videos', 'search_a video search', 'Videos with duration, channel and thumbnail.', ['videos', 'video'], SafeInput, resultOf('videos', VideoItem, 'Videos, best first.')),
  serperEndpoint('shopping', 'search_a shopping search', 'Product offers with price, merchant and rating.', ['shopping', 'products', 'prices'], BasicInput, resultOf('shopping', ShoppingItem, 'Offers, best first.')),
  serperEndpoint('scholar', 'search_a scholar search', 'Scholarly articles with publication info, citations and PDF links.', ['scholar', 'papers', 'academic', 'citations'], ScholarInput, resultOf('organic', ScholarItem, 'Works, best first.')),
  serperEndpoint('patents', 'search_a patent search', 'Patents with dates, inventor, assignee and publication number.', ['patents', 'inventions'], BasicInput, resultOf('organic', PatentItem, 'Patents, best first.')),
];

export default definePlugin({
  id: 'search_a',
  apiVersion: 1,
  title: 'search_a (Serper-compatible search API)',
  summary: 'Search engine results: web, news, places, maps, autocomplete, images, videos, shopping, scholar and patents.',
  tags: ['search', 'engine', 'google', 'serp', 'news', 'places', 'provider'],
  config,
  endpoints,
  implements: implementations,
});
