/**
 * The search routes the original service's clients call (issue 14), through the real server with
 * search_a pointed at its fake: `POST /api/v1/search` (with results scraped by our own scrape
 * lane, one page failing), `search-places`, `search-maps`, `search-news`, `get-autocomplete`, the
 * automation platforms' inputs ("" and null for optional fields, region forms), exact bodies and
 * balances, and the v2 lane of the same capabilities.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveLoopback, type LoopbackServer } from '../core/testing/index.js';
import { startFake, type SearchAFake } from '../plugins/search_a/fake.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

describe('search routes through the server', () => {
  let fake: SearchAFake;
  let pages: LoopbackServer;
  let deadPort: string;
  let s: TestServer;
  let key: string;
  const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
  const sent = () => fake.requests.at(-1)!.body;

  before(async () => {
    pages = await serveLoopback((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><head><title>Result ${req.url}</title></head><body><h1>Result page ${req.url}</h1><p>Body text.</p></body></html>`);
    });
    const dead = await serveLoopback(() => undefined);
    deadPort = dead.url;
    await dead.close();
    // Result 2 points at a closed port: that page fails to scrape.
    fake = await startFake({ linkOf: (position, slug) => (position === 2 ? `${deadPort}/${slug}` : `${pages.url}/r${position}-${slug}`) });
    s = await startServer({ serviceConfig: pluginsConfig(['web', 'search_a', 'locations'], { scrape_page: ['web'] }), env: { ...fake.env, ALLOW_PRIVATE_NETWORK: 'true' } });
    ({ key } = await s.createKey({ credits: 10_000, rateLimitPerMinute: 10_000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
    await pages?.close();
  });

  it('POST /api/v1/search: the original shape, dateRange → tbs, 30 credits', async () => {
    const before = await balance();
    const r = await s.call('POST', '/api/v1/search', { key, body: { query: 'solar panels', country: 'us', language: 'en', dateRange: 'pastYear', page: 1, requestSource: 'AUTOMATION_A' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(sent(), { q: 'solar panels', gl: 'us', hl: 'en', page: 1, tbs: 'qdr:y' });
    assert.deepEqual(Object.keys(r.json).sort(), ['organic', 'peopleAlsoAsk', 'relatedSearches', 'searchParameters']);
    assert.deepEqual(Object.keys(r.json.organic[1]).sort(), ['link', 'position', 'snippet', 'title']);
    assert.equal(r.json.searchParameters.tbs, 'qdr:y');
    assert.deepEqual(r.json.peopleAlsoAsk[0], { question: 'What is solar panels?', snippet: 'solar panels is a topic.', title: 'What is solar panels', link: 'https://answers.example/solar-panels' });
    assert.equal(r.headers['x-credits-charged'], '30');
    assert.equal(await balance(), before - 30);
  });

  it('scrapeResults: the top results scraped in parallel by our scrape lane; the failed page has an error and is not charged', async () => {
    const before = await balance();
    const r = await s.call('POST', '/api/v1/search', { key, body: { query: 'wind', scrapeResults: true, numResultsToScrape: 3, scrapeOptions: { format: 'markdown', cleaned: false, renderJs: false } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(sent(), { q: 'wind' });
    const [first, second, third, fourth] = r.json.organic;
    assert.equal(first.scrapeOutput.title, 'Result /r1-wind');
    assert.match(first.scrapeOutput.content, /# Result page \/r1-wind/);
    assert.deepEqual([first.scrapeOutput.format, first.scrapeOutput.cleaned], ['markdown', false]);
    assert.deepEqual(Object.keys(second.scrapeOutput), ['error']);
    assert.ok(second.scrapeOutput.error.length > 0);
    assert.equal(third.scrapeOutput.url, `${pages.url}/r3-wind`);
    assert.equal(fourth.scrapeOutput, undefined);
    assert.equal(r.headers['x-credits-charged'], '50', '30 for the search + 10 for each of the two pages scraped');
    assert.equal(await balance(), before - 50);
  });

  it('a key with credits for the search but not for the pages asked is refused before anything runs', async () => {
    const { key: poor } = await s.createKey({ credits: 40 });
    const n = fake.requests.length;
    const r = await s.call('POST', '/api/v1/search', { key: poor, body: { query: 'wind', scrapeResults: true, numResultsToScrape: 2 } });
    assert.deepEqual([r.status, r.json], [403, { error: 'Insufficient credits. Please top up your account.' }]);
    assert.equal(fake.requests.length, n);
  });

  it('POST /api/v1/search-places (30) and /api/v1/search-maps (100, gpsPositionZoom, placeId, cid)', async () => {
    const before = await balance();
    const places = await s.call('POST', '/api/v1/search-places', { key, body: { query: 'coffee', location: 'Austin,Texas,United States', page: 2 } });
    assert.equal(places.status, 200, places.text);
    assert.deepEqual(sent(), { q: 'coffee', location: 'Austin,Texas,United States', page: 2 });
    assert.equal(places.json.places[0].title, 'coffee place 11');
    const maps = await s.call('POST', '/api/v1/search-maps', { key, body: { query: 'pizza', gpsPositionZoom: '@40.7128,-74.006,14z' } });
    assert.equal(maps.status, 200, maps.text);
    assert.deepEqual(sent(), { q: 'pizza', ll: '@40.7128,-74.006,14z' });
    assert.deepEqual([maps.json.ll, typeof maps.json.places[0].placeId], ['@40.7128,-74.006,14z', 'string']);
    const byCid = await s.call('POST', '/api/v1/search-maps', { key, body: { query: 'pizza', cid: '123456789' } });
    assert.deepEqual(byCid.json.places.map((p: any) => p.cid), ['123456789']);
    const bad = await s.call('POST', '/api/v1/search-maps', { key, body: { query: 'pizza', gpsPositionZoom: 'near me' } });
    assert.deepEqual([bad.status, bad.json], [400, { error: "'gpsPositionZoom' must look like @40.7128,-74.006,14z." }]);
    assert.equal(await balance(), before - 30 - 100 - 100);
  });

  it('search-news reports news[] with the provider fields for 30 credits', async () => {
    const before = await balance();
    const r = await s.call('POST', '/api/v1/search-news', { key, body: { query: 'elections', dateRange: 'pastDay' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json.news[0]).sort(), ['date', 'imageUrl', 'link', 'position', 'snippet', 'source', 'title']);
    assert.equal(await balance(), before - 30);
  });

  it('automation-platform inputs: "" and null optional fields take defaults, region forms are understood, a blank query keeps the spec 400', async () => {
    const blanks = { country: '', language: null, location: '', dateRange: '', page: null, requestSource: '' };
    for (const path of ['/api/v1/search', '/api/v1/search-news', '/api/v1/search-places', '/api/v1/get-autocomplete']) {
      const r = await s.call('POST', path, { key, body: { query: 'tea', ...blanks } });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      assert.deepEqual(sent(), { q: 'tea' }, path);
    }
    const maps = await s.call('POST', '/api/v1/search-maps', { key, body: { query: 'tea', gpsPositionZoom: '', placeId: null, cid: '' } });
    assert.equal(maps.status, 200, maps.text);
    const region = await s.call('POST', '/api/v1/search-news', { key, body: { query: 'chá', country: 'pt-BR', language: 'zh-TW' } });
    assert.equal(region.status, 200, region.text);
    assert.deepEqual(sent(), { q: 'chá', gl: 'br', hl: 'zh-tw' });
    const auto = await s.call('POST', '/api/v1/get-autocomplete', { key, body: { query: 'chá', country: 'PT-br', language: 'pt-BR' } });
    assert.deepEqual(auto.json.searchParameters, { q: 'chá', gl: 'br', hl: 'pt-br', type: 'autocomplete', engine: 'google' });
    const n = fake.requests.length;
    for (const path of ['/api/v1/search', '/api/v1/search-news', '/api/v1/search-places', '/api/v1/search-maps', '/api/v1/get-autocomplete']) {
      const r = await s.call('POST', path, { key, body: { query: '', country: '' } });
      assert.deepEqual([r.status, r.json], [400, { error: 'query parameter is required' }], path);
    }
    assert.equal(fake.requests.length, n, 'nothing reached the provider');
  });

  it('v2: the same capabilities, discovery and prices', async () => {
    const run = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'search_maps', input: { query: 'museum', placeId: 'ChIJm' } } });
    assert.equal(run.status, 200, run.text);
    assert.deepEqual([run.json.meta.provider, run.json.meta.credits, run.json.data.places[0].placeId], ['search_a', 100, 'ChIJm']);
    const web = await s.call('POST', '/api/v2/details', { key, body: { id: 'engine_search' } });
    assert.equal(web.json.data.cost.kind, 'custom');
    assert.match(web.json.data.cost.note, /30 credits per page of results, plus 10 per result scraped/);
    const found = await s.call('POST', '/api/v2/search', { key, body: { query: 'maps places gps' } });
    assert.ok(found.json.data.items.some((i: any) => i.id === 'search_maps'));
  });
});
