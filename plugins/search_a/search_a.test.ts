/**
 * search_a: the real client against the loopback fake of its contract (contracts §1), then
 * black-box through the real server with SEARCH_A_BASE_URL pointing at the fake: both lanes,
 * discovery, exact v1 shapes and credits, every upstream fault (spec §7.1) with the balance
 * unchanged, and the not-configured answers.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import plugin from './index.js';
import { startFake, type SearchAFake } from './fake.js';
import { createHttpEngineWith } from '../../core/engines/http/index.js';
import { ServiceError } from '../../core/errors.js';
import type { Engines } from '../../core/engines/types.js';
import type { ServiceConfig } from '../../core/registry/types.js';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { undocumentedFields } from '../../core/registry/build.js';

const serviceConfig: ServiceConfig = {
  plugins: {
    capabilities: () => import('../../plugins/capabilities/index.js'),
    search_a: () => import('./index.js'),
    locations: () => import('../locations/index.js'),
  },
  providerOrder: {},
};

const OPERATIONS = ['search', 'news', 'places', 'maps', 'autocomplete', 'images', 'videos', 'shopping', 'scholar', 'patents'];
const RESULT_KEY: Record<string, string> = { search: 'organic', news: 'news', places: 'places', maps: 'places', autocomplete: 'suggestions', images: 'images', videos: 'videos', shopping: 'shopping', scholar: 'organic', patents: 'organic' };

describe('search_a client against the fake', () => {
  let fake: SearchAFake;
  const http = createHttpEngineWith({ env: {} });
  const log = { debug() {}, info() {}, warn() {}, error() {} };
  before(async () => {
    fake = await startFake();
  });
  after(async () => {
    await fake.close();
    await http.close();
  });

  async function run(operation: string, input: Record<string, unknown>, config: Record<string, string> = {}) {
    const ep = plugin.endpoints!.find((e) => e.operation === operation)!;
    let native: unknown;
    const ctx = {
      config: { baseUrl: fake.url, apiKey: fake.apiKey, timeoutMs: '15000', ...config },
      engines: { http } as unknown as Engines,
      log,
      signal: AbortSignal.timeout(30_000),
      requestId: 'test',
      usage: { add() {}, units: {} },
      setNative: (p: unknown) => (native = p),
    };
    const out = (await ep.run(input as never, ctx as never)) as any;
    return { out, native: native as any, ep };
  }
  const failure = (p: Promise<unknown>) => p.then(() => 'ok', (e) => (assert.ok(e instanceof ServiceError, String(e)), `${e.status} ${e.message}`));

  it('declares the ten endpoints with costs, described fields and examples that match the schemas', () => {
    assert.deepEqual(plugin.endpoints!.map((e) => e.operation), OPERATIONS);
    for (const ep of plugin.endpoints!) {
      assert.deepEqual(ep.cost.describe, { kind: 'flat', credits: ep.operation === 'autocomplete' ? 30 : 10 });
      for (const [name, field] of Object.entries((ep.input as any).properties)) assert.ok((field as any).description, `${ep.operation}.${name} needs a description`);
      assert.ok(ep.examples!.length > 0);
      for (const ex of ep.examples!) assert.ok(TypeCompiler.Compile(ep.input).Check(ex.input), `${ep.operation}: ${ex.title}`);
    }
  });

  it('every endpoint POSTs its JSON body with X-API-KEY and returns the documented shape without the provider credits', async () => {
    for (const operation of OPERATIONS) {
      const input = plugin.endpoints!.find((e) => e.operation === operation)!.examples![0]!.input as Record<string, unknown>;
      const { out, native, ep } = await run(operation, input);
      const sent = fake.requests.at(-1)!;
      assert.equal(sent.path, `/${operation}`);
      assert.equal(sent.headers['x-api-key'], fake.apiKey);
      assert.match(sent.headers['content-type']!, /^application\/json/);
      assert.deepEqual(sent.body, input);
      assert.ok(TypeCompiler.Compile(ep.output).Check(out), `${operation}: ${JSON.stringify(out).slice(0, 200)}`);
      assert.ok(Array.isArray(out[RESULT_KEY[operation]!]) && out[RESULT_KEY[operation]!].length > 0, operation);
      assert.equal(out.searchParameters.q, input.q);
      assert.equal(out.credits, undefined, 'the provider-side credit count is not ours');
      assert.equal(typeof native.credits, 'number', 'the native payload is kept whole');
    }
  });

  it('only documented, defined fields are sent; paging and filters are', async () => {
    const { out } = await run('news', { q: 'solar', gl: 'gb', hl: 'en', num: 3, page: 2, tbs: 'qdr:w', location: undefined, apiKey: 'not a parameter' });
    assert.deepEqual(fake.requests.at(-1)!.body, { q: 'solar', gl: 'gb', hl: 'en', num: 3, page: 2, tbs: 'qdr:w' });
    assert.equal(out.news.length, 3);
    assert.deepEqual(out.news.map((n: any) => n.position), [4, 5, 6]);
    assert.equal(out.searchParameters.tbs, 'qdr:w');
  });

  it('maps upstream faults to the catalogue without leaking the key', async () => {
    const q = { q: 'fault' };
    assert.equal(await failure(run('news', q, { apiKey: 'wrong-key' })), '500 Service authentication failed. Please contact support.');
    const cases: [Parameters<SearchAFake['setMode']>[0], string | RegExp][] = [
      ['unauthorized', '500 Service authentication failed. Please contact support.'],
      ['unauthorized_401', '500 Service authentication failed. Please contact support.'],
      // Our provider account is out of credits: the operator's problem, not the caller's input.
      ['out_of_credits', '500 Service authentication failed. Please contact support.'],
      ['rate_limited', '503 Rate limit exceeded. Please try again later.'],
      ['server_error', '502 Failed to retrieve data from search_a: Internal server error.'],
      ['garbage', '502 Received invalid data structure from search_a service.'],
    ];
    try {
      for (const [mode, expected] of cases) {
        fake.setMode(mode);
        const got = await failure(run('news', q));
        if (typeof expected === 'string') assert.equal(got, expected, mode);
        assert.ok(!got.includes(fake.apiKey) && !got.includes(fake.url), `${mode}: ${got}`);
      }
      fake.setMode('slow');
      assert.equal(await failure(run('news', q, { timeoutMs: '200' })), '502 The search_a service timed out.');
      fake.setMode('wrong_shape');
      const { out, ep } = await run('news', q);
      assert.equal(TypeCompiler.Compile(ep.output).Check(out), false, 'the executor rejects this shape with a 502');
    } finally {
      fake.setMode('ok');
    }
    // Bypassing the schema, the provider's own 400 comes back as a 400 with its reason.
    assert.equal(await failure(run('search', { q: '' })), '400 search_a rejected the request: Missing query parameter.');
    assert.equal(await failure(run('news', { q: 'x', safe: 'sometimes' })), '400 search_a rejected the request: safe must be active or off.');
    const closed = await startFake();
    await closed.close();
    const unreachable = await failure(run('search', q, { baseUrl: closed.url }));
    assert.equal(unreachable, '502 Failed to retrieve results from the search_a service.');
  });

  it('the fake holds callers to the contract: POST only, JSON media type, key, enum values', async () => {
    const call = (init: RequestInit & { path?: string }) => fetch(`${fake.url}${init.path ?? '/news'}`, init).then(async (r) => [r.status, (await r.json()).message]);
    const headers = { 'x-api-key': fake.apiKey, 'content-type': 'application/json' };
    assert.deepEqual(await call({ method: 'GET', path: '/news?q=x', headers }), [405, 'Method not allowed']);
    assert.deepEqual(await call({ method: 'POST', headers: { ...headers, 'content-type': 'text/plain' }, body: '{"q":"x"}' }), [400, 'Content-Type must be application/json']);
    assert.deepEqual(await call({ method: 'POST', headers: { ...headers, 'x-api-key': 'other' }, body: '{"q":"x"}' }), [403, 'Unauthorized.']);
    assert.deepEqual(await call({ method: 'POST', headers, body: '{"q":"x","safe":"maybe"}' }), [400, 'safe must be active or off']);
    assert.deepEqual(await call({ method: 'POST', headers, body: '{"q":"   "}' }), [400, 'Missing query parameter']);
    // Parameters in the query string of a POST without a body (LangChain's way) are read too.
    const viaQuery = await fetch(`${fake.url}/news?q=tides&num=2`, { method: 'POST', headers: { 'x-api-key': fake.apiKey } });
    assert.equal(viaQuery.status, 200);
    assert.equal((await viaQuery.json()).news.length, 2);
  });

  it('every response field of every endpoint has a description (boot validation)', () => {
    for (const ep of plugin.endpoints!) {
      assert.deepEqual(undocumentedFields(ep.input), [], `${ep.operation} input`);
      assert.deepEqual(undocumentedFields(ep.output), [], `${ep.operation} output`);
    }
  });
});

describe('search_a through the server', () => {
  let fake: SearchAFake;
  let s: TestServer;
  let key: string;
  const balance = async (k = key) => (await s.call('GET', '/api/v2/balance', { key: k })).json.data.credits;

  before(async () => {
    fake = await startFake();
    s = await startServer({ serviceConfig, env: { ...fake.env, SEARCH_A_TIMEOUT_MS: '300' } });
    ({ key } = await s.createKey({ credits: 1000, rateLimitPerMinute: 10_000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });

  it('v2 run of search_news maps dateRange to tbs and keeps the provider shape minus credits', async () => {
    const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'search_news', input: { query: 'wind power', dateRange: 'pastWeek', country: 'GB', page: 2 } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(fake.requests.at(-1)!.body, { q: 'wind power', gl: 'gb', page: 2, tbs: 'qdr:w' });
    assert.deepEqual(Object.keys(r.json.data).sort(), ['news', 'searchParameters']);
    assert.equal(r.json.data.news.length, 10);
    assert.equal(r.json.data.news[0].title, 'wind power: story 11');
    assert.deepEqual([r.json.object, r.json.meta.provider, r.json.meta.credits], ['capability_result', 'search_a', 10]);
    assert.equal(await balance(), 990);
    for (const [dateRange, tbs] of [['pastHour', 'qdr:h'], ['pastDay', 'qdr:d'], ['pastMonth', 'qdr:m'], ['pastYear', 'qdr:y'], ['anyTime', undefined]]) {
      const x = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'search_news', input: { query: 'q', dateRange } } });
      assert.equal(x.status, 200);
      assert.equal(fake.requests.at(-1)!.body.tbs, tbs, dateRange);
    }
    const bad = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'search_news', input: { query: 'q', dateRange: 'yesterday' } } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.code, 'INVALID_INPUT');
    assert.equal(bad.json.error, "Invalid input: 'dateRange' must be one of: anyTime, pastHour, pastDay, pastWeek, pastMonth, pastYear.");
    const badLanguage = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'search_news', input: { query: 'q', language: 'english!' } } });
    assert.equal(badLanguage.status, 400);
    assert.match(badLanguage.json.error, /^Invalid input: 'language' expected string to match '\^\[A-Za-z\]/);
    const badCountry = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'search_news', input: { query: 'q', country: '12' } } });
    assert.equal(badCountry.status, 400);
    assert.match(badCountry.json.error, /'country'/);
    assert.equal(await balance(), 940);
  });

  it('v2 run of the endpoint search_a.news with the native payload; engine_search and search_places too', async () => {
    const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'search_a.news', input: { q: 'tides', tbs: 'qdr:d', num: 2 }, options: { include_native: true } } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.object, 'endpoint_result');
    assert.equal(r.json.data.news.length, 2);
    assert.equal(r.json.data.credits, undefined);
    assert.equal(r.json.meta.native.credits, 1);
    assert.deepEqual(r.json.meta.native.news, r.json.data.news);
    const web = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'engine_search', input: { query: 'apple inc', language: 'en' } } });
    assert.equal(web.status, 200);
    assert.equal(web.json.data.organic[0].link, 'https://site1.example/apple-inc');
    assert.equal(web.json.data.knowledgeGraph.title, 'apple inc');
    const places = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'search_places', input: { query: 'tacos', location: 'Austin,Texas,United States' } } });
    assert.equal(places.status, 200);
    assert.deepEqual(fake.requests.at(-1)!.body, { q: 'tacos', location: 'Austin,Texas,United States' });
    assert.equal(places.json.data.places[0].title, 'tacos place 1');
    assert.equal(await balance(), 940 - 30);
  });

  it('v2 search finds the capability and the endpoint; details show schemas and cost', async () => {
    const found = await s.call('POST', '/api/v2/search', { key, body: { query: 'news' } });
    const ids = found.json.data.items.map((i: any) => i.id);
    assert.ok(ids.includes('search_news') && ids.includes('search_a.news'), ids.join(','));
    assert.equal(ids[0], 'search_news');
    const cap = await s.call('POST', '/api/v2/details', { key, body: { id: 'search_news' } });
    assert.deepEqual(cap.json.data.cost, { kind: 'flat', credits: 10 });
    assert.deepEqual(cap.json.data.providers, [{ id: 'search_a', endpoint: 'search_a.news', configured: true, allowed: true }]);
    assert.deepEqual(cap.json.data.input.properties.dateRange.anyOf.map((x: any) => x.const), ['anyTime', 'pastHour', 'pastDay', 'pastWeek', 'pastMonth', 'pastYear']);
    const ep = await s.call('POST', '/api/v2/details', { key, body: { id: 'search_a.news' } });
    assert.equal(ep.status, 200);
    assert.deepEqual(ep.json.data.cost, { kind: 'flat', credits: 10 });
    assert.deepEqual(ep.json.data.input.required, ['q']);
    assert.equal(ep.json.data.output.properties.news.type, 'array');
    assert.deepEqual(ep.json.data.capabilities, ['search_news']);
    assert.ok(ep.json.data.examples.length > 0);
    const auto = await s.call('POST', '/api/v2/details', { key, body: { id: 'search_a.autocomplete' } });
    assert.deepEqual(auto.json.data.cost, { kind: 'flat', credits: 30 });
    const provider = await s.call('POST', '/api/v2/details', { key, body: { id: 'search_a', type: 'provider' } });
    assert.equal(provider.json.data.endpoints.length, 10);
    assert.deepEqual(provider.json.data.missingSettings, []);
  });

  it('v1 search-news: spec 400, exact shape and 10 credits', async () => {
    const before = await balance();
    const missing = await s.call('POST', '/api/v1/search-news', { key, body: { dateRange: 'pastWeek' } });
    assert.deepEqual([missing.status, missing.json], [400, { error: 'query parameter is required' }]);
    // A query that is there but too long is not "required": the message says what is wrong.
    const long = await s.call('POST', '/api/v1/search-news', { key, body: { query: 'x'.repeat(3000) } });
    assert.equal(long.status, 400);
    assert.match(long.json.error, /^Invalid input: 'query' expected string length less or equal to \d+\.$/);
    const r = await s.call('POST', '/api/v1/search-news', { key, body: { query: 'elections', dateRange: 'pastDay', country: 'us', language: 'en', location: 'Ohio,United States', requestSource: 'API' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(fake.requests.at(-1)!.body, { q: 'elections', gl: 'us', hl: 'en', location: 'Ohio,United States', tbs: 'qdr:d' });
    assert.deepEqual(Object.keys(r.json).sort(), ['news', 'searchParameters']);
    assert.deepEqual(r.json.searchParameters, { q: 'elections', gl: 'us', hl: 'en', type: 'news', engine: 'google', num: 10, page: 1, autocorrect: true, location: 'Ohio,United States', tbs: 'qdr:d' });
    assert.deepEqual(Object.keys(r.json.news[0]).sort(), ['date', 'imageUrl', 'link', 'position', 'snippet', 'source', 'title']);
    assert.equal(r.headers['x-credits-charged'], '10');
    assert.equal(await balance(), before - 10);
  });

  it('v1 get-autocomplete: country → gl, language → hl, exactly searchParameters + suggestions, 30 credits', async () => {
    const before = await balance();
    const missing = await s.call('POST', '/api/v1/get-autocomplete', { key, body: {} });
    assert.deepEqual([missing.status, missing.json], [400, { error: 'query parameter is required' }]);
    const r = await s.call('POST', '/api/v1/get-autocomplete', { key, body: { query: 'how to bake', country: 'GB', language: 'en', location: 'London,England,United Kingdom' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(fake.requests.at(-1)!.body, { q: 'how to bake', gl: 'gb', hl: 'en', location: 'London,England,United Kingdom' });
    assert.deepEqual(r.json, {
      searchParameters: { q: 'how to bake', gl: 'gb', hl: 'en', type: 'autocomplete', location: 'London,England,United Kingdom', engine: 'google' },
      suggestions: ['how to bake', 'how to bake near me', 'how to bake meaning', 'how to bake online', 'how to bake for beginners'].map((value) => ({ value })),
    });
    assert.equal(await balance(), before - 30);
  });

  it('a query of only whitespace is missing: spec 400 / INVALID_INPUT, nothing charged, provider not called', async () => {
    const before = await balance();
    const sent = fake.requests.length;
    for (const path of ['/api/v1/search-news', '/api/v1/get-autocomplete']) {
      const r = await s.call('POST', path, { key, body: { query: ' \t\n ' } });
      assert.deepEqual([r.status, r.json], [400, { error: 'query parameter is required' }], path);
    }
    for (const id of ['engine_search', 'search_news', 'search_places']) {
      const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id, input: { query: '   ' } } });
      assert.deepEqual([r.status, r.json.code, r.json.error], [400, 'INVALID_INPUT', 'query parameter is required'], id);
    }
    const direct = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'search_a.news', input: { q: '  ' } } });
    assert.deepEqual([direct.status, direct.json.code, direct.json.error], [400, 'INVALID_INPUT', "'q' parameter is required and must be a non-empty string."]);
    assert.equal(fake.requests.length, sent, 'the provider was not called');
    assert.equal(await balance(), before);
  });

  it('gl is sent lower-cased whether the endpoint is called directly or through a capability', async () => {
    const direct = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'search_a.search', input: { q: 'tea', gl: 'GB' } } });
    assert.equal(direct.status, 200, direct.text);
    assert.deepEqual(fake.requests.at(-1)!.body, { q: 'tea', gl: 'gb' });
    assert.equal(direct.json.data.searchParameters.gl, 'gb');
    const viaCapability = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'engine_search', input: { query: 'tea', country: 'GB' } } });
    assert.equal(viaCapability.status, 200);
    assert.deepEqual(fake.requests.at(-1)!.body, { q: 'tea', gl: 'gb' });
  });

  it('the capabilities search_a serves carry examples that details shows and that run', async () => {
    for (const id of ['engine_search', 'search_news', 'search_places']) {
      const d = await s.call('POST', '/api/v2/details', { key, body: { id } });
      assert.ok(d.json.data.examples.length > 0, id);
      const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id, input: d.json.data.examples[0].input } });
      assert.equal(r.status, 200, `${id}: ${r.text}`);
    }
  });

  it('every upstream fault is mapped in both lanes and releases the credits', async () => {
    const before = await balance();
    const cases: [Parameters<SearchAFake['setMode']>[0], number, string, string | RegExp][] = [
      ['unauthorized', 500, 'PROVIDER_AUTH_FAILED', 'Service authentication failed. Please contact support.'],
      ['unauthorized_401', 500, 'PROVIDER_AUTH_FAILED', 'Service authentication failed. Please contact support.'],
      ['out_of_credits', 500, 'PROVIDER_AUTH_FAILED', 'Service authentication failed. Please contact support.'],
      ['rate_limited', 503, 'UPSTREAM_RATE_LIMITED', 'Rate limit exceeded. Please try again later.'],
      ['server_error', 502, 'UPSTREAM_ERROR', 'Failed to retrieve data from search_a: Internal server error.'],
      ['garbage', 502, 'UPSTREAM_ERROR', 'Received invalid data structure from search_a service.'],
      ['wrong_shape', 502, 'UPSTREAM_ERROR', 'Received invalid data structure from search_a service.'],
      ['slow', 502, 'UPSTREAM_ERROR', 'The search_a service timed out.'],
    ];
    try {
      for (const [mode, status, code, message] of cases) {
        fake.setMode(mode);
        const v1 = await s.call('POST', '/api/v1/search-news', { key, body: { query: 'fault' } });
        assert.deepEqual([v1.status, v1.json], [status, { error: message }], `v1 ${mode}`);
        const auto = await s.call('POST', '/api/v1/get-autocomplete', { key, body: { query: 'fault' } });
        assert.deepEqual([auto.status, auto.json], [status, { error: message }], `v1 autocomplete ${mode}`);
        const v2 = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'search_a.search', input: { q: 'fault' } } });
        assert.deepEqual([v2.status, v2.json.success, v2.json.code, v2.json.error], [status, false, code, message], `v2 ${mode}`);
        assert.ok(!v2.text.includes(fake.apiKey) && !v2.text.includes(fake.url));
        assert.equal(await balance(), before, `credits released after ${mode}`);
      }
    } finally {
      fake.setMode('ok');
    }
    const again = await s.call('POST', '/api/v1/search-news', { key, body: { query: 'recovered' } });
    assert.equal(again.status, 200);
  });
});

describe('search_a without SEARCH_A_API_KEY', () => {
  let s: TestServer;
  after(() => s?.close());

  it('answers Service not configured (500 in v1, NOT_CONFIGURED in v2) and charges nothing', async () => {
    s = await startServer({ serviceConfig, env: { SEARCH_A_API_KEY: '' } });
    const { key } = await s.createKey({ credits: 100 });
    const v1 = await s.call('POST', '/api/v1/search-news', { key, body: { query: 'x' } });
    assert.deepEqual([v1.status, v1.json], [500, { error: 'Service not configured. Please contact support.' }]);
    const auto = await s.call('POST', '/api/v1/get-autocomplete', { key, body: { query: 'x' } });
    assert.deepEqual([auto.status, auto.json], [500, { error: 'Service not configured. Please contact support.' }]);
    for (const body of [{ type: 'capability', id: 'search_news', input: { query: 'x' } }, { type: 'endpoint', id: 'search_a.news', input: { q: 'x' } }]) {
      const v2 = await s.call('POST', '/api/v2/run', { key, body });
      assert.deepEqual([v2.status, v2.json.code, v2.json.error], [500, 'NOT_CONFIGURED', 'Service not configured. Please contact support.']);
    }
    const provider = await s.call('POST', '/api/v2/details', { key, body: { id: 'search_a', type: 'provider' } });
    assert.deepEqual(provider.json.data.missingSettings, ['SEARCH_A_API_KEY']);
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 100);
  });
});
