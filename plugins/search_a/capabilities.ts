/**
 * How search_a serves the search capabilities (spec §4.4, §4.9; issue 14): the capability input in
 * the original service's names (`query`, `country`, `dateRange`, `gpsPositionZoom`…) becomes the
 * provider's parameters (`q`, `gl`, `tbs`, `ll`…), and the web-search answer is reshaped to the
 * fields the original's clients read.
 */
import { type Implementation } from '../../core/sdk.js';
import { countryCode, languageCode } from '../../core/catalogue.js';

/** spec §4.9 `dateRange` → the provider's `tbs` time filter (contracts §1); `anyTime` sends none. */
export const DATE_RANGE_TBS: Record<string, string | undefined> = { anyTime: undefined, pastHour: 'qdr:h', pastDay: 'qdr:d', pastWeek: 'qdr:w', pastMonth: 'qdr:m', pastYear: 'qdr:y' };

type Locale = { query: string; country?: string; language?: string; location?: string };
type Item = Record<string, unknown>;

/** Capability input → provider parameters shared by every search capability. */
function locale(i: Locale) {
  return { q: i.query, gl: countryCode(i.country), hl: languageCode(i.language), location: i.location };
}

/** `40.7,-74.0,14` or `@40.7,-74.0,14z` → the provider's `@40.7,-74.0,14z`. */
export function llOf(gps: string | undefined): string | undefined {
  if (gps === undefined) return undefined;
  const [lat, lng, zoom] = gps.replace(/^@/, '').replace(/z$/, '').split(',').map((p) => p.trim());
  return `@${lat},${lng},${zoom}z`;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const pick = (o: Item, keys: string[]) => Object.fromEntries(keys.filter((k) => typeof o[k] === 'string').map((k) => [k, o[k]]));
const list = (v: unknown) => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Item[]) : []);

/** The provider's web-search payload → `{ searchParameters, organic, featuredSnippet?, relatedSearches?, peopleAlsoAsk? }`. */
export function webSearchOutput(o: Item): Item {
  const organic = list(o.organic)
    .filter((r) => typeof r.link === 'string')
    .map((r, i) => ({
      title: str(r.title) ?? '',
      link: r.link as string,
      snippet: str(r.snippet) ?? '',
      position: Number.isInteger(r.position) ? (r.position as number) : i + 1,
      ...(Array.isArray(r.sitelinks) ? { sitelinks: list(r.sitelinks).map((l) => pick(l, ['title', 'link'])) } : {}),
      ...(typeof r.date === 'string' ? { date: r.date } : {}),
      ...(r.scrapeOutput ? { scrapeOutput: r.scrapeOutput } : {}),
    }));
  const out: Item = { searchParameters: o.searchParameters, organic };
  if (o.answerBox && typeof o.answerBox === 'object') out.featuredSnippet = pick(o.answerBox as Item, ['title', 'answer', 'snippet', 'link']);
  const related = list(o.relatedSearches).filter((r) => typeof r.query === 'string');
  if (related.length) out.relatedSearches = related.map((r) => ({ query: r.query }));
  const paa = list(o.peopleAlsoAsk).filter((r) => typeof r.question === 'string');
  if (paa.length) out.peopleAlsoAsk = paa.map((r) => ({ question: r.question, ...pick(r, ['snippet', 'title', 'link']) }));
  return out;
}

const SEARCH_PARAMETER_KEYS = ['q', 'gl', 'hl', 'type', 'location', 'engine'];

const plain: Implementation[] = [
  {
    capability: 'engine_search',
    endpoint: 'search',
    mapInput: (i) => ({ ...locale(i), page: i.page, tbs: i.dateRange ? DATE_RANGE_TBS[i.dateRange] : undefined, scrapeResults: i.scrapeResults, numResultsToScrape: i.numResultsToScrape, scrapeOptions: i.scrapeOptions }),
    mapOutput: webSearchOutput,
  },
  { capability: 'search_news', endpoint: 'news', mapInput: (i) => ({ ...locale(i), page: i.page, tbs: i.dateRange ? DATE_RANGE_TBS[i.dateRange] : undefined }) },
  { capability: 'search_places', endpoint: 'places', mapInput: (i) => ({ ...locale(i), page: i.page }) },
  { capability: 'search_maps', endpoint: 'maps', mapInput: (i) => ({ q: i.query, gl: countryCode(i.country), hl: languageCode(i.language), ll: llOf(i.gpsPositionZoom), placeId: i.placeId, cid: i.cid, page: i.page }) },
  {
    // spec §4.4: exactly `searchParameters` (q, gl, hl, type, location, engine) and `suggestions` [{ value }].
    capability: 'engine_autocomplete',
    endpoint: 'autocomplete',
    mapInput: locale,
    mapOutput: (o: { searchParameters: Item; suggestions: { value: string }[] }) => ({
      searchParameters: pick(o.searchParameters, SEARCH_PARAMETER_KEYS),
      suggestions: o.suggestions.map((s) => ({ value: s.value })),
    }),
  },
];

/** The implementations, with inputs compacted so optional fields left out are not sent as undefined. */
export const implementations: Implementation[] = plain.map((impl) => {
  const mapInput = impl.mapInput!;
  return { ...impl, mapInput: (i: unknown) => Object.fromEntries(Object.entries(mapInput(i) as Item).filter(([, v]) => v !== undefined)) };
});
