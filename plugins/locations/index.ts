/**
 * locations: the service-managed list of search locations behind `GET /api/v1/engine-locations`
 * (spec §4.4). Every ISO 3166-1 country plus states, provinces, regions and major cities in the
 * canonical "City,Region,Country" form the search operations accept as `location`, each with its
 * country code, shipped as data in this folder. Needs no key and costs nothing.
 */
import { InputError, Type, defineEndpoint, definePlugin, flat } from '../../core/sdk.js';
import { COUNTRIES } from './countries.js';
import { REGIONS } from './regions.js';
import { CITIES } from './cities.js';

/** One supported location. */
export interface Location {
  name: string;
  canonicalName: string;
  countryCode: string;
  type: string;
}

/** The types in listing order: a country before its subdivisions, subdivisions before cities. */
export const LOCATION_TYPES = ['Country', 'State', 'Province', 'Region', 'City'];

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);

/** Builds the sorted list from the data files; throws on a malformed line so a bad edit fails at boot. */
export function loadLocations(): Location[] {
  const countries = new Map<string, string>();
  for (const line of lines(COUNTRIES)) {
    const [code, name] = line.split('|');
    if (!code || !/^[A-Z]{2}$/.test(code) || !name) throw new Error(`locations: bad country line '${line}'`);
    countries.set(code, name);
  }
  const out: Location[] = [...countries].map(([code, name]) => ({ name, canonicalName: name, countryCode: code, type: 'Country' }));
  const place = (line: string, cityRow: boolean) => {
    const [name, region, code, type = 'City'] = line.split('|');
    const country = countries.get(code ?? '');
    if (!name || !country || (cityRow && !region) || !LOCATION_TYPES.includes(type)) throw new Error(`locations: bad line '${line}'`);
    out.push({ name, canonicalName: [name, region, country].filter(Boolean).join(','), countryCode: code!, type });
  };
  for (const line of lines(REGIONS)) place(line, false);
  for (const line of lines(CITIES)) place(line, true);
  const rank = (t: string) => LOCATION_TYPES.indexOf(t);
  return out.sort((a, b) => rank(a.type) - rank(b.type) || a.name.localeCompare(b.name, 'en') || a.canonicalName.localeCompare(b.canonicalName, 'en'));
}

/**
 * Lower-case without diacritics, so `sao paulo` finds `São Paulo` and `turkiye` finds `Türkiye`;
 * spaces around commas are dropped so `London, England` matches the canonical `London,England,…`.
 */
function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s*,\s*/g, ',').trim();
}

const Input = Type.Object({
  q: Type.Optional(Type.String({ description: 'Case- and accent-insensitive substring of the short or the canonical name (e.g. london, texas, "London,England").', maxLength: 200 })),
  countryCode: Type.Optional(Type.String({ description: 'Only locations in this country (ISO 3166-1 alpha-2, e.g. GB).', pattern: '^[A-Za-z]{2}$' })),
  type: Type.Optional(Type.String({ description: `Only locations of this type: ${LOCATION_TYPES.join(', ')} (case-insensitive).`, minLength: 1, maxLength: 40 })),
});

const Output = Type.Object({
  locations: Type.Array(
    Type.Object({
      name: Type.String({ description: 'Short name, e.g. London.' }),
      canonicalName: Type.String({ description: 'Name to pass as `location`, e.g. "London,England,United Kingdom".' }),
      countryCode: Type.String({ description: 'ISO 3166-1 alpha-2 country code (pass lower-cased as `country`).' }),
      type: Type.String({ description: `One of ${LOCATION_TYPES.join(', ')}.` }),
    }),
    { description: 'Matching locations: countries, then subdivisions, then cities, each by name.' },
  ),
  total: Type.Integer({ description: 'Number of matching locations.' }),
});

const list = defineEndpoint({
  operation: 'list',
  title: 'Supported search locations',
  summary: 'Countries, regions and cities accepted as search locations, with country codes; filter by name, country or type.',
  tags: ['search', 'locations', 'countries', 'cities', 'geo'],
  visibility: 'legacy',
  input: Input,
  output: Output,
  cost: flat(0),
  examples: [
    { title: 'Locations named like London', input: { q: 'london' } },
    { title: 'Cities in Germany', input: { countryCode: 'DE', type: 'City' } },
  ],
  async run(input, ctx) {
    const all = (ctx.state as { locations: (Location & { search: string })[] }).locations;
    const type = input.type === undefined ? undefined : LOCATION_TYPES.find((t) => t.toLowerCase() === input.type!.trim().toLowerCase());
    if (input.type !== undefined && !type) throw new InputError(`type must be one of ${LOCATION_TYPES.join(', ')}.`);
    const q = input.q === undefined ? '' : fold(input.q);
    const cc = input.countryCode?.toUpperCase();
    // The canonical name holds the short one, so `texas` finds the state and every city in it.
    const locations = all.filter((l) => (!q || l.search.includes(q)) && (!cc || l.countryCode === cc) && (!type || l.type === type));
    return { locations: locations.map(({ search: _search, ...l }) => l), total: locations.length };
  },
});

export default definePlugin({
  id: 'locations',
  apiVersion: 1,
  title: 'Search locations',
  summary: 'Built-in list of countries, regions and cities the search operations accept as locations.',
  tags: ['search', 'locations', 'managed'],
  managed: true,
  endpoints: [list],
  implements: [{ capability: 'engine_locations', endpoint: 'list' }],
  // Folded once at boot, so a request only compares strings.
  setup: () => ({ locations: loadLocations().map((l) => ({ ...l, search: fold(l.canonicalName) })) }),
});
