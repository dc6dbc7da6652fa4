/**
 * `location` checked against the search-location list in use (issue 28), through the real
 * server with search_a, seo_a and the shipped list: a name not on it is a free 400 naming the
 * closest names, sent nowhere upstream; names on it pass whatever their case, accents or spaces
 * after commas; location codes pass. GET /api/v1/engine-locations is the list checked against.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFake as startSearchFake, type SearchAFake } from '../plugins/search_a/fake.js';
import { startFake as startSeoFake, type SeoAFake } from '../plugins/seo_a/fake.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

let search: SearchAFake;
let seo: SeoAFake;
let s: TestServer;
let key: string;

before(async () => {
  search = await startSearchFake();
  seo = await startSeoFake();
  s = await startServer({ serviceConfig: pluginsConfig(['search_a', 'seo_a', 'locations']), env: { ...search.env, ...seo.env } });
  ({ key } = await s.createKey({ credits: 10_000 }));
});
after(async () => {
  await s?.close();
  await search?.close();
  await seo?.close();
});

const post = (path: string, body: unknown) => s.call('POST', path, { key, body });
const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;

test('a misspelt location is a free 400 with the closest listed names, and reaches no provider', async () => {
  const start = await balance();
  const sent = search.requests.length;
  const r = await post('/api/v1/search-places', { query: 'coffee', location: 'Londn,England,United Kingdom' });
  assert.equal(r.status, 400, r.text);
  assert.match(r.json.error, /^Unknown location 'Londn,England,United Kingdom'\. Closest: 'London,England,United Kingdom'/);
  assert.match(r.json.error, /GET \/api\/v1\/engine-locations lists the accepted names\.$/);
  const reviews = await post('/api/v1/get-engine-reviews', { keyword: 'hedonism wines', location: 'Atlantis' });
  assert.equal(reviews.status, 400, reviews.text);
  assert.match(reviews.json.error, /^Unknown location 'Atlantis'\./);
  assert.equal(search.requests.length, sent);
  assert.equal(await balance(), start);
});

test('listed names pass in any case, accents and comma spacing; every listed name is accepted', async () => {
  const ok = await post('/api/v1/search-places', { query: 'coffee', location: 'austin, texas, united states' });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(search.requests.at(-1)!.body.location, 'austin, texas, united states');
  const listed = (await s.call('GET', '/api/v1/engine-locations?q=Sao%20Paulo', { key })).json.locations;
  assert.ok(listed.length > 0);
  const accents = await post('/api/v1/search', { query: 'coffee', location: listed[0].canonicalName.normalize('NFD').replace(/\p{M}/gu, '') });
  assert.equal(accents.status, 200, accents.text);
  const code = await post('/api/v1/get-engine-reviews', { keyword: 'hedonism wines', location: '2840' });
  assert.equal(code.status, 200, code.text);
  assert.equal(seo.requests.find((r) => r.method === 'POST')!.body[0].location_code, 2840);
});
