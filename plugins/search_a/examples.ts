/**
 * Example calls of the search_a endpoints. Boot validation checks them against the input schemas,
 * `/api/v2/details` shows them and the contract test runs each one through the server against the
 * fake (design: "Tests"). Examples of the capabilities search_a serves are declared with the
 * capabilities themselves (core/catalogue/search.ts), since any provider may serve those.
 */
import type { Example } from '../../core/sdk.js';

/** Example inputs per endpoint operation. */
export const endpointExamples: Record<string, Example[]> = {
  search: [
    { title: 'Web results for a company', input: { q: 'apple inc', gl: 'us', hl: 'en' } },
    { title: 'Second page, 20 results, past week', input: { q: 'typescript release', num: 20, page: 2, tbs: 'qdr:w' } },
  ],
  news: [
    { title: 'News from the past day', input: { q: 'renewable energy', tbs: 'qdr:d' } },
    { title: 'German news in German', input: { q: 'Bundesliga', gl: 'de', hl: 'de' } },
  ],
  places: [{ title: 'Coffee shops in a city', input: { q: 'coffee shops', location: 'Austin,Texas,United States' } }],
  maps: [{ title: 'Pizza around a map position', input: { q: 'pizza', ll: '@40.7128,-74.006,14z' } }],
  autocomplete: [{ title: 'Suggestions for a prefix', input: { q: 'how to learn', gl: 'gb', hl: 'en' } }],
  images: [{ title: 'Images of a landmark', input: { q: 'eiffel tower at night', num: 10 } }],
  videos: [{ title: 'Tutorial videos', input: { q: 'sourdough bread tutorial' } }],
  shopping: [{ title: 'Product offers', input: { q: 'noise cancelling headphones', gl: 'us' } }],
  scholar: [{ title: 'Papers in a year range', input: { q: 'transformer neural network', as_ylo: 2018, as_yhi: 2020 } }],
  patents: [{ title: 'Patents on a technology', input: { q: 'solid state battery electrolyte' } }],
};

