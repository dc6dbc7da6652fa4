/**
 * search_a's upstream faults through the real server (spec §7.1): every fault of the fake answers
 * the catalogue's status and text in both lanes with the balance unchanged, and a server without
 * SEARCH_A_API_KEY answers `Service not configured` on every search route, charging nothing.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFake, type SearchAFake } from '../plugins/search_a/fake.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

const ROUTES = ['/api/v1/search', '/api/v1/search-news', '/api/v1/search-places', '/api/v1/search-maps', '/api/v1/get-autocomplete'];

describe('search faults through the server', () => {
  let fake: SearchAFake;
  let s: TestServer;
  let key: string;
  const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;

  before(async () => {
    fake = await startFake();
    s = await startServer({ serviceConfig: pluginsConfig(['search_a']), env: { ...fake.env, SEARCH_A_TIMEOUT_MS: '300' } });
    ({ key } = await s.createKey({ credits: 1000, rateLimitPerMinute: 10_000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });

  it('every upstream fault is mapped in both lanes and releases the credits', async () => {
    const before = await balance();
    const cases: [string, (f: SearchAFake) => void, number, string, string][] = [
      ['key refused (403)', (f) => f.rejectKey(), 500, 'PROVIDER_AUTH_FAILED', 'Service authentication failed. Please contact support.'],
      ['401', (f) => f.failWith(401, { message: 'Unauthorized.', statusCode: 401 }), 500, 'PROVIDER_AUTH_FAILED', 'Service authentication failed. Please contact support.'],
      ['out of credits', (f) => f.outOfCredits(), 503, 'PROVIDER_OUT_OF_CREDITS', 'The service is temporarily unavailable. Please try again later.'],
      ['rate limited', (f) => f.rateLimit(), 503, 'UPSTREAM_RATE_LIMITED', 'Rate limit exceeded. Please try again later.'],
      ['server error', (f) => f.failWith(500), 502, 'UPSTREAM_ERROR', 'Failed to retrieve data from search_a service.'],
      ['garbage', (f) => f.garbage(), 502, 'UPSTREAM_ERROR', 'Received invalid data structure from search_a service.'],
      ['wrong shape', (f) => f.failWith(200, { searchParameters: { q: 'fault' }, results: 'not a list', credits: 1 }), 502, 'UPSTREAM_ERROR', 'Received invalid data structure from search_a service.'],
      ['no answer', (f) => f.hang(), 502, 'UPSTREAM_ERROR', 'The search_a service timed out.'],
    ];
    try {
      for (const [mode, breakIt, status, code, message] of cases) {
        fake.reset();
        breakIt(fake);
        for (const path of ROUTES) {
          const v1 = await s.call('POST', path, { key, body: { query: 'fault' } });
          assert.deepEqual([v1.status, v1.json], [status, { error: message }], `${path} ${mode}`);
        }
        const v2 = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'search_a.search', input: { q: 'fault' } } });
        assert.deepEqual([v2.status, v2.json.success, v2.json.code, v2.json.error], [status, false, code, message], `v2 ${mode}`);
        assert.ok(!v2.text.includes(fake.apiKey) && !v2.text.includes(fake.url));
        assert.equal(await balance(), before, `credits released after ${mode}`);
      }
    } finally {
      fake.reset();
    }
    const again = await s.call('POST', '/api/v1/search', { key, body: { query: 'recovered' } });
    assert.equal(again.status, 200);
  });
});

describe('search without SEARCH_A_API_KEY', () => {
  let s: TestServer;
  after(() => s?.close());

  it('answers Service not configured (500 in v1, NOT_CONFIGURED in v2) and charges nothing', async () => {
    s = await startServer({ serviceConfig: pluginsConfig(['search_a']), env: { SEARCH_A_API_KEY: '' } });
    const { key } = await s.createKey({ credits: 100 });
    for (const path of ROUTES) {
      const v1 = await s.call('POST', path, { key, body: { query: 'x' } });
      assert.deepEqual([v1.status, v1.json], [500, { error: 'Service not configured. Please contact support.' }], path);
    }
    const v2 = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'search_a.news', input: { q: 'x' } } });
    assert.deepEqual([v2.status, v2.json.code], [500, 'NOT_CONFIGURED']);
    const provider = await s.call('POST', '/api/v2/details', { key, body: { id: 'search_a', type: 'provider' } });
    assert.deepEqual(provider.json.data.missingSettings, ['SEARCH_A_API_KEY']);
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 100);
  });
});
