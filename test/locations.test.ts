/** locations: the shipped data and `GET /api/v1/engine-locations` through the real server (spec §4.4). */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadLocations } from '../plugins/locations/index.js';
import type { ServiceConfig } from '../core/registry/types.js';
import { startServer, type TestServer } from './helpers/server.js';

const serviceConfig: ServiceConfig = {
  plugins: {
    capabilities: () => import('../plugins/capabilities/index.js'),
    locations: () => import('../plugins/locations/index.js'),
  },
  providerOrder: {},
};

describe('locations data', () => {
  const all = loadLocations();

  it('lists every ISO 3166-1 country once, with a unique two-letter code', () => {
    const countries = all.filter((l) => l.type === 'Country');
    assert.equal(countries.length, 249);
    assert.equal(new Set(countries.map((c) => c.countryCode)).size, 249);
    for (const c of countries) assert.match(c.countryCode, /^[A-Z]{2}$/);
    const byCode = Object.fromEntries(countries.map((c) => [c.countryCode, c.canonicalName]));
    assert.deepEqual([byCode.GB, byCode.US, byCode.DE, byCode.KR, byCode.CI], ['United Kingdom', 'United States', 'Germany', 'South Korea', "Côte d'Ivoire"]);
  });

  it('has a few hundred cities and regions in the canonical form, each name unique', () => {
    const places = all.filter((l) => l.type !== 'Country');
    assert.ok(places.length >= 400, String(places.length));
    assert.equal(new Set(all.map((l) => l.canonicalName)).size, all.length, 'canonical names are unique');
    const countryName = new Map(all.filter((l) => l.type === 'Country').map((c) => [c.countryCode, c.canonicalName]));
    for (const p of places) {
      const parts = p.canonicalName.split(',');
      assert.equal(parts[0], p.name);
      assert.equal(parts.at(-1), countryName.get(p.countryCode), p.canonicalName);
      assert.equal(parts.length, p.type === 'City' ? 3 : 2, p.canonicalName);
    }
  });
});

describe('GET /api/v1/engine-locations', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer({ serviceConfig });
    ({ key } = await s.createKey({ credits: 5 }));
  });
  after(() => s?.close());

  it('filters by name, case-insensitively, and charges nothing', async () => {
    const r = await s.call('GET', '/api/v1/engine-locations?q=london', { key });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {
      locations: [{ name: 'London', canonicalName: 'London,England,United Kingdom', countryCode: 'GB', type: 'City' }],
      total: 1,
    });
    assert.ok(r.headers['x-ratelimit-limit']);
    const upper = await s.call('GET', '/api/v1/engine-locations?q=LONDON', { key });
    assert.deepEqual(upper.json, r.json);
    const portland = await s.call('GET', '/api/v1/engine-locations?q=portland', { key });
    assert.deepEqual(portland.json.locations.map((l: any) => l.canonicalName), ['Portland,Maine,United States', 'Portland,Oregon,United States']);
    const accents = await s.call('GET', '/api/v1/engine-locations?q=turkiye', { key });
    assert.deepEqual(accents.json.locations.map((l: any) => [l.name, l.countryCode]), [['Türkiye', 'TR'], ['Ankara', 'TR'], ['Istanbul', 'TR'], ['Izmir', 'TR']]);
    const none = await s.call('GET', '/api/v1/engine-locations?q=atlantis', { key });
    assert.deepEqual(none.json, { locations: [], total: 0 });
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 5);
  });

  it('q matches the canonical name too, so a region or "City,Region" finds its places', async () => {
    const names = async (q: string) => {
      const r = await s.call('GET', `/api/v1/engine-locations?q=${encodeURIComponent(q)}`, { key });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.total, r.json.locations.length);
      return r.json.locations.map((l: any) => l.canonicalName);
    };
    const texas = await names('texas');
    assert.equal(texas[0], 'Texas,United States', 'the state first, then its cities');
    assert.ok(texas.includes('Austin,Texas,United States') && texas.includes('Houston,Texas,United States'), texas.join(' | '));
    for (const n of texas.slice(1)) assert.match(n, /,Texas,United States$/);
    assert.deepEqual(await names('London,England'), ['London,England,United Kingdom']);
    assert.deepEqual(await names('london, ENGLAND'), ['London,England,United Kingdom'], 'spaces after commas and case do not matter');
    assert.deepEqual(await names('Austin,Texas,United States'), ['Austin,Texas,United States']);
    assert.deepEqual(await names('ISTANBUL, Turkiye'), ['Istanbul,Istanbul,Türkiye'], 'accents do not matter');
    assert.deepEqual(await names('São Paulo,Brazil'), ['Sao Paulo,Brazil', 'Campinas,Sao Paulo,Brazil', 'Sao Paulo,Sao Paulo,Brazil']);
    assert.deepEqual(await names('Texas,England'), []);
  });

  it('lists everything without q (countries first) and filters by country and type', async () => {
    const r = await s.call('GET', '/api/v1/engine-locations', { key });
    assert.equal(r.status, 200);
    assert.equal(r.json.total, r.json.locations.length);
    assert.ok(r.json.total > 600);
    assert.deepEqual(r.json.locations[0], { name: 'Afghanistan', canonicalName: 'Afghanistan', countryCode: 'AF', type: 'Country' });
    const de = await s.call('GET', '/api/v1/engine-locations?countryCode=de&type=city', { key });
    assert.ok(de.json.total >= 10);
    for (const l of de.json.locations) assert.deepEqual([l.countryCode, l.type, l.canonicalName.endsWith(',Germany')], ['DE', 'City', true]);
    assert.ok(de.json.locations.some((l: any) => l.canonicalName === 'Munich,Bavaria,Germany'));
    const states = await s.call('GET', '/api/v1/engine-locations?countryCode=US&type=State', { key });
    assert.equal(states.json.total, 51, '50 states and the District of Columbia');
    const bad = await s.call('GET', '/api/v1/engine-locations?type=planet', { key });
    assert.deepEqual([bad.status, bad.json], [400, { error: 'type must be one of Country, State, Province, Region, City.' }]);
    const badCc = await s.call('GET', '/api/v1/engine-locations?countryCode=GBR', { key });
    assert.equal(badCc.status, 400);
  });

  it('stays off the unified lane like its capability', async () => {
    const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'engine_locations', input: { q: 'paris' } } });
    assert.equal(r.status, 404);
  });
});
