/**
 * search_a: the real client against the loopback fake of its contract (contracts §1), through the
 * executor (core/testing): every endpoint's request and shape, the capability mappings (dateRange,
 * region forms, maps positions, the web-search shape and its scraping step), and its upstream
 * faults through the provider fault suite (spec §7.1). Black-box tests through the server: test/search*.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { outcome, providerFaultSuite, withFake } from '../../core/testing/index.js';
import { InputError, Type, defineEndpoint, definePlugin, flat } from '../../core/sdk.js';
import plugin from './index.js';
import { startFake } from './fake.js';

const OPERATIONS = ['search', 'news', 'places', 'maps', 'autocomplete', 'images', 'videos', 'shopping', 'scholar', 'patents'];
const RESULT_KEY: Record<string, string> = { search: 'organic', news: 'news', places: 'places', maps: 'places', autocomplete: 'suggestions', images: 'images', videos: 'videos', shopping: 'shopping', scholar: 'organic', patents: 'organic' };

/** A stand-in for the scrape lane: answers every URL but the second result's (a 404). */
const scraper = definePlugin({
  id: 'test_scraper', apiVersion: 1, title: 'Test scraper', summary: 'Scrapes nothing real.', managed: true,
  endpoints: [
    defineEndpoint({
      operation: 'scrape', title: 'Scrape', summary: 'Scrape.', cost: flat(10),
      input: Type.Object({ url: Type.String({ description: 'URL.' }), format: Type.Optional(Type.String({ description: 'Format.' })), cleaned: Type.Optional(Type.Boolean({ description: 'Cleaned.' })) }, { additionalProperties: true }),
      output: Type.Object({}, { additionalProperties: true, description: 'Page.' }),
      async run(i) {
        if (i.url.includes('site2.')) throw new InputError('The page could not be fetched (HTTP 404).');
        return { title: `Page ${i.url}`, url: i.url, content: `# ${i.url}`, metadata: { statusCode: 200, contentType: 'text/html' }, format: i.format ?? 'markdown', cleaned: i.cleaned ?? false };
      },
    }),
  ],
  implements: [{ capability: 'scrape_page', endpoint: 'scrape' }],
});

// Its own faults besides the rule: a 401 is our key too; a 200 of the wrong shape is invalid structure.
providerFaultSuite({
  plugin, fake: startFake, endpoint: 'news', input: { q: 'fault' },
  also: {
    'its 401': [(f) => f.failWith(401, { message: 'Unauthorized.', statusCode: 401 }), '500 Service authentication failed. Please contact support.'],
    'its answer with the results not a list': [(f) => f.reshape((json) => ({ ...json, news: 'not a list' })), '502 Received invalid data structure from search_a service.'],
  },
});

const t = withFake(plugin, startFake, { plugins: [scraper] });

describe('search_a endpoints against the fake', () => {
  it('declares the ten endpoints with their prices and examples that match the schemas', () => {
    assert.deepEqual(plugin.endpoints!.map((e) => e.operation), OPERATIONS);
    const prices = Object.fromEntries(plugin.endpoints!.map((e) => [e.operation, e.cost.describe.kind === 'flat' ? e.cost.describe.credits : e.cost.describe.kind]));
    assert.deepEqual(prices, { search: 'custom', news: 30, places: 30, maps: 100, autocomplete: 30, images: 30, videos: 30, shopping: 30, scholar: 30, patents: 30 });
    for (const ep of plugin.endpoints!) for (const ex of ep.examples!) assert.ok(TypeCompiler.Compile(ep.input).Check(ex.input), `${ep.operation}: ${ex.title}`);
  });

  it('every endpoint POSTs its JSON body with X-API-KEY and returns the documented shape without the provider credits', async () => {
    for (const operation of OPERATIONS) {
      const input = plugin.endpoints!.find((e) => e.operation === operation)!.examples![0]!.input as Record<string, unknown>;
      const r = await t.h.endpoint(operation, input, { includeNative: true });
      assert.deepEqual([t.fake.last().path, t.fake.last().headers['x-api-key'], t.fake.last().headers['content-type']!.split(';')[0], t.fake.last().body], [`/${operation}`, t.fake.apiKey, 'application/json', input]);
      assert.ok(r.data[RESULT_KEY[operation]!].length > 0, operation);
      assert.equal(r.data.searchParameters.q, input.q);
      // The provider-side credit count is not ours; the native payload is kept whole.
      assert.deepEqual([r.data.credits, typeof (r.native as any).credits], [undefined, 'number']);
    }
  });

  it('only documented, defined fields go upstream; gl is lower-cased; paging works; an unknown enum value is the caller\'s 400', async () => {
    const r = await t.h.endpoint('news', { q: 'solar', gl: 'GB', hl: 'en', num: 3, page: 2, tbs: 'qdr:w', apiKey: 'not a parameter' });
    assert.deepEqual(t.fake.last().body, { q: 'solar', gl: 'gb', hl: 'en', num: 3, page: 2, tbs: 'qdr:w' });
    assert.deepEqual([r.data.news.map((n: any) => n.position), r.credits], [[4, 5, 6], 30]);
    assert.equal(await outcome(t.h.endpoint('news', { q: 'x', safe: 'sometimes' })), "400 Invalid input: 'safe' must be one of: active, off.");
  });

  it('the fake holds callers to the contract: POST only, JSON media type, key, enum values', async () => {
    const call = (init: RequestInit & { path?: string }) => fetch(`${t.fake.url}${init.path ?? '/news'}`, init).then(async (r) => [r.status, (await r.json()).message]);
    const headers = { 'x-api-key': t.fake.apiKey, 'content-type': 'application/json' };
    assert.deepEqual(await call({ method: 'GET', path: '/news?q=x', headers }), [405, 'Method not allowed']);
    assert.deepEqual(await call({ method: 'POST', headers: { ...headers, 'content-type': 'text/plain' }, body: '{"q":"x"}' }), [400, 'Content-Type must be application/json']);
    assert.deepEqual(await call({ method: 'POST', headers: { ...headers, 'x-api-key': 'other' }, body: '{"q":"x"}' }), [403, 'Unauthorized.']);
    assert.deepEqual(await call({ method: 'POST', headers, body: '{"q":"x","safe":"maybe"}' }), [400, 'safe must be active or off']);
    assert.deepEqual(await call({ method: 'POST', headers, body: '{"q":"   "}' }), [400, 'Missing query parameter']);
  });
});

describe('search_a capabilities', () => {
  it('engine_search: dateRange → tbs, region forms of country and language, the original web-search shape', async () => {
    const r = await t.h.capability('engine_search', { query: 'apple inc', country: 'pt-BR', language: 'zh_TW', dateRange: 'pastMonth', page: 2 });
    assert.deepEqual(t.fake.last().body, { q: 'apple inc', gl: 'br', hl: 'zh-tw', page: 2, tbs: 'qdr:m' });
    assert.deepEqual(Object.keys(r.data).sort(), ['organic', 'peopleAlsoAsk', 'relatedSearches', 'searchParameters']);
    assert.deepEqual(r.data.organic[0], { title: 'apple inc — result 11', link: 'https://site11.example/apple-inc', snippet: 'A page about apple inc.', position: 11, sitelinks: [{ title: 'About', link: 'https://site11.example/about' }] });
    assert.deepEqual(r.data.relatedSearches, [{ query: 'apple inc news' }, { query: 'apple inc meaning' }]);
    assert.deepEqual({ reserved: r.reserved, credits: r.credits }, { reserved: 30, credits: 30 });
  });

  it('engine_search with scrapeResults scrapes the top results in parallel through scrape_page; a failed page has an error and costs nothing', async () => {
    const r = await t.h.capability('engine_search', { query: 'tea', scrapeResults: true, numResultsToScrape: 3, scrapeOptions: { format: 'html', cleaned: true } });
    assert.deepEqual(t.fake.last().body, { q: 'tea' }, 'the scraping options never go upstream');
    const [a, b, c, d] = r.data.organic;
    assert.deepEqual(a.scrapeOutput, { title: 'Page https://site1.example/tea', url: 'https://site1.example/tea', content: '# https://site1.example/tea', metadata: { statusCode: 200, contentType: 'text/html' }, format: 'html', cleaned: true });
    assert.deepEqual(b.scrapeOutput, { error: 'The page could not be fetched (HTTP 404).' });
    assert.deepEqual([c.scrapeOutput.url, d.scrapeOutput], ['https://site3.example/tea', undefined], 'only the top three are scraped');
    // 30 for the search + 10 per page scraped: reserved for three, charged for the two that worked.
    assert.deepEqual({ reserved: r.reserved, credits: r.credits }, { reserved: 60, credits: 50 });
    const dflt = await t.h.capability('engine_search', { query: 'tea', scrapeResults: true });
    assert.deepEqual([dflt.data.organic.filter((o: any) => o.scrapeOutput).length, dflt.credits], [3, 50], 'numResultsToScrape defaults to 3');
  });

  it('search_maps: gpsPositionZoom → ll, placeId / cid name one place; search_places pages; news', async () => {
    const maps = await t.h.capability('search_maps', { query: 'pizza', gpsPositionZoom: '40.7128, -74.006, 14', page: 1 });
    assert.deepEqual(t.fake.last().body, { q: 'pizza', ll: '@40.7128,-74.006,14z', page: 1 });
    assert.deepEqual([maps.data.ll, maps.credits], ['@40.7128,-74.006,14z', 100]);
    const one = await t.h.capability('search_maps', { query: 'pizza', placeId: 'ChIJxyz' });
    assert.deepEqual(one.data.places.map((p: any) => p.placeId), ['ChIJxyz']);
    const places = await t.h.capability('search_places', { query: 'tacos', location: 'Austin,Texas,United States', page: 3 });
    assert.deepEqual(t.fake.last().body, { q: 'tacos', location: 'Austin,Texas,United States', page: 3 });
    assert.deepEqual([places.data.places[0].position, places.credits], [21, 30]);
    const news = await t.h.capability('search_news', { query: 'wind', dateRange: 'anyTime', country: 'GB' });
    assert.deepEqual(t.fake.last().body, { q: 'wind', gl: 'gb' });
    assert.equal(news.credits, 30);
  });
});
