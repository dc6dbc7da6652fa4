/**
 * The two lanes through the real server: authentication on every route, bad input, discovery,
 * envelopes, usage rows with requestSource, the admin API and the v1 mapping table.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, request, type TestServer } from './helpers/server.js';
import { testServiceConfig } from './fixtures/test-plugins.js';
import { LEGACY_ROUTES } from '../server/legacy-routes.js';

const V2_ROUTES: [string, string][] = [
  ['POST', '/api/v2/run'],
  ['POST', '/api/v2/search'],
  ['POST', '/api/v2/details'],
  ['GET', '/api/v2/balance'],
  ['GET', '/api/v2/usage'],
  ['GET', '/api/v2/transactions'],
];

describe('API lanes', () => {
  let s: TestServer;
  let key: string;
  let keyId: string;
  before(async () => {
    s = await startServer({ serviceConfig: testServiceConfig() });
    ({ key, id: keyId } = await s.createKey({ credits: 1000 }));
  });
  after(() => s?.close());

  it('401 on every route of both lanes: missing header, wrong scheme, unknown key, inactive key', async () => {
    const { id: inactiveId, key: inactive } = await s.createKey({ credits: 10 });
    await s.admin('PATCH', `/keys/${inactiveId}`, { active: false });
    const routes: [string, string][] = [...LEGACY_ROUTES.map((r) => [r.method, r.path] as [string, string]), ...V2_ROUTES];
    for (const [method, path] of routes) {
      const body = method === 'POST' ? {} : undefined;
      const cases: [Record<string, string>, string][] = [
        [{}, 'Invalid or missing Authorization header'],
        [{ authorization: `Basic ${key}` }, 'Invalid or missing Authorization header'],
        [{ authorization: 'Bearer cia_unknown' }, 'API key is invalid or missing.'],
        [{ authorization: `Bearer ${inactive}` }, 'API key is invalid or missing.'],
      ];
      for (const [headers, message] of cases) {
        const r = await request(s.url + path, method, { headers, body });
        assert.equal(r.status, 401, `${method} ${path} ${JSON.stringify(headers)}`);
        if (path.startsWith('/api/v1')) assert.deepEqual(r.json, { error: message });
        else {
          assert.equal(r.json.success, false);
          assert.equal(r.json.code, 'UNAUTHORIZED');
          assert.equal(r.json.error, message);
          assert.match(r.json.requestId, /^req_/);
        }
      }
    }
  });

  it('malformed JSON is a 400 in both lanes', async () => {
    const v1 = await s.call('POST', '/api/v1/search-news', { key, rawBody: '{"query": ' });
    assert.equal(v1.status, 400);
    assert.deepEqual(v1.json, { error: 'Invalid JSON body.' });
    const v2 = await s.call('POST', '/api/v2/run', { key, rawBody: '{nope' });
    assert.equal(v2.status, 400);
    assert.equal(v2.json.code, 'INVALID_INPUT');
    assert.equal(v2.json.success, false);
  });

  it('wrong types, unknown type and unknown ids', async () => {
    const badType = await s.call('POST', '/api/v2/run', { key, body: { type: 'thing', id: 'x', input: {} } });
    assert.equal(badType.status, 400);
    assert.equal(badType.json.code, 'INVALID_INPUT');
    const noInput = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo' } });
    assert.equal(noInput.status, 400);
    const wrongField = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', input: { text: 42 } } });
    assert.equal(wrongField.status, 400);
    assert.match(wrongField.json.error, /'text'/);
    const unknown = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'no_such_thing', input: {} } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.code, 'NOT_FOUND');
    const legacyOnV2 = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'run_js_code', input: { code: '1' } } });
    assert.equal(legacyOnV2.status, 404, 'v1-only jobs are not on the unified lane (spec §9.1)');
    const noRoute = await s.call('GET', '/api/v2/nothing', { key });
    assert.equal(noRoute.status, 404);
    assert.equal(noRoute.json.code, 'NOT_FOUND');
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 1000);
  });

  it('spec messages on v1 validation and not-configured operations', async () => {
    const missing = await s.call('POST', '/api/v1/search-news', { key, body: {} });
    assert.deepEqual([missing.status, missing.json], [400, { error: 'query parameter is required' }]);
    const reviews = await s.call('POST', '/api/v1/get-engine-reviews', { key, body: { reviews: 5 } });
    assert.deepEqual([reviews.status, reviews.json], [400, { error: 'Either keyword, cid, or placeId must be provided' }]);
    const channel = await s.call('POST', '/api/v1/videosite/channel', { key, body: {} });
    assert.deepEqual([channel.status, channel.json], [400, { error: "At least one parameter is required: 'channelId', 'handle', or 'url'" }]);
    const notConfigured = await s.call('POST', '/api/v1/videosite/channel', { key, body: { handle: '@examplechannel' } });
    assert.deepEqual([notConfigured.status, notConfigured.json], [500, { error: 'Service not configured. Please contact support.' }]);
    const pending = await s.call('POST', '/api/v1/get-clipsite-profile', { key, body: { handle: 'examplecreator' } });
    assert.deepEqual([pending.status, pending.json], [500, { error: 'Service not configured. Please contact support.' }]);
    const v2 = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'search_news', input: { query: 'x' } } });
    assert.equal(v2.status, 500);
    assert.equal(v2.json.code, 'NOT_CONFIGURED');
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 1000);
  });

  it('search ranks capabilities and endpoints by keyword; aliases resolve', async () => {
    const r = await s.call('POST', '/api/v2/search', { key, body: { prompt: 'news articles' } });
    assert.equal(r.status, 200);
    assert.equal(r.json.object, 'search_result');
    assert.equal(r.json.data.items[0].id, 'search_news');
    const typed = await s.call('POST', '/api/v2/search', { key, body: { query: 'echo', type: 'endpoint' } });
    assert.deepEqual(typed.json.data.items.map((i: any) => i.type), typed.json.data.items.map(() => 'endpoint'));
    assert.ok(typed.json.data.items.some((i: any) => i.id === 'test_echo.echo'));
    const crawl = await s.call('POST', '/api/v2/search', { key, body: { query: 'crawl', limit: 1 } });
    assert.equal(crawl.json.data.items[0].id, 'crawl_site');
    const extract = await s.call('POST', '/api/v2/search', { key, body: { query: 'extract', limit: 1 } });
    assert.equal(extract.json.data.items[0].id, 'extract_web');
    const hidden = await s.call('POST', '/api/v2/search', { key, body: { query: 'pdf' } });
    assert.ok(!hidden.json.data.items.some((i: any) => i.id === 'merge_pdfs'), 'legacy jobs stay off v2 discovery');
    const bad = await s.call('POST', '/api/v2/search', { key, body: { query: 'x', limit: 0 } });
    assert.equal(bad.status, 400);
  });

  it('details: schemas, cost, providers with configured/allowed state; related only when asked', async () => {
    const lean = await s.call('POST', '/api/v2/details', { key, body: { id: 'test_echo' } });
    assert.equal(lean.status, 200);
    const d = lean.json.data;
    assert.equal(d.type, 'capability');
    assert.deepEqual(d.cost, { kind: 'flat', credits: 10 });
    assert.equal(d.input.properties.text.type, 'string');
    assert.deepEqual(d.input.required, ['text']);
    assert.deepEqual(d.providers.map((p: any) => [p.id, p.configured, p.allowed]), [['test_keyed', false, true], ['test_fail', true, true], ['test_echo', true, true]]);
    assert.equal(d.related, undefined);
    const rich = await s.call('POST', '/api/v2/details', { key, body: { id: 'test_echo', includeRelated: true } });
    assert.deepEqual(rich.json.data.related.endpoints, ['test_keyed.echo', 'test_fail.echo', 'test_echo.echo']);
    const alias = await s.call('POST', '/api/v2/details', { key, body: { id: 'crawl' } });
    assert.equal(alias.json.data.id, 'crawl_site');
    const provider = await s.call('POST', '/api/v2/details', { key, body: { id: 'test_keyed', type: 'provider' } });
    assert.equal(provider.json.data.configured, false);
    assert.deepEqual(provider.json.data.missingSettings, ['TEST_KEYED_API_KEY']);
    const ep = await s.call('POST', '/api/v2/details', { key, body: { id: 'test_echo.echo', includeRelated: true } });
    assert.deepEqual(ep.json.data.examples, [{ title: 'hello', input: { text: 'hello' } }]);
    assert.equal(ep.json.data.related.provider.id, 'test_echo');
    const none = await s.call('POST', '/api/v2/details', { key, body: { id: 'nope' } });
    assert.equal(none.status, 404);
  });

  it('usage rows record lane, target, provider, status, credits and requestSource (body, header, query)', async () => {
    const { key: k2 } = await s.createKey({ credits: 100 });
    const run = (extra: Record<string, unknown>, headers?: Record<string, string>) =>
      s.call('POST', '/api/v2/run', { key: k2, body: { type: 'capability', id: 'test_echo', input: { text: 'u' }, ...extra }, headers });
    await run({ requestSource: 'AUTOMATION_A' });
    await run({}, { 'request-source': 'n8n-node' });
    await run({ requestSource: '  CLI  ' });
    await run({ requestSource: 'x'.repeat(100) });
    await run({});
    await s.call('GET', '/api/v2/balance?requestSource=mcp', { key: k2 });
    const v1 = await s.call('POST', '/api/v1/search-news', { key: k2, body: { query: 'q', requestSource: 'PLAYGROUND' } });
    assert.equal(v1.status, 500);
    const usage = await s.call('GET', '/api/v2/usage?limit=20', { key: k2 });
    const rows = usage.json.data.items.reverse();
    assert.deepEqual(rows.map((r: any) => r.requestSource), ['AUTOMATION_A', 'n8n-node', 'CLI', 'x'.repeat(64), 'API', 'mcp', 'PLAYGROUND']);
    assert.deepEqual(rows[0].lane, 'v2');
    assert.deepEqual([rows[0].objectType, rows[0].objectId, rows[0].provider, rows[0].status, rows[0].credits], ['capability', 'test_echo', 'test_echo', 200, 10]);
    assert.deepEqual([rows[6].lane, rows[6].objectId, rows[6].status, rows[6].code], ['v1', 'search_news', 500, 'NOT_CONFIGURED']);
    const filtered = await s.call('GET', '/api/v2/usage?objectType=capability&objectId=search_news', { key: k2 });
    assert.equal(filtered.json.data.items.length, 1);
    const byProvider = await s.call('GET', '/api/v2/usage?provider=test_echo&status=success', { key: k2 });
    assert.equal(byProvider.json.data.items.length, 5);
    const paged = await s.call('GET', '/api/v2/usage?limit=2&page=2', { key: k2 });
    assert.equal(paged.json.data.items.length, 2);
    const bad = await s.call('GET', '/api/v2/usage?limit=0', { key: k2 });
    assert.equal(bad.status, 400);
  });

  it('admin API: create shows the key once, list hides it, update changes limits and policy', async () => {
    const created = await s.admin('POST', '/keys', { name: 'ops', credits: 5, rateLimitPerMinute: 7, budget: 3, policy: { block: ['test_fail'] } });
    assert.equal(created.status, 201);
    assert.match(created.json.key, /^cia_/);
    const list = await s.admin('GET', '/keys?limit=100');
    const listed = list.json.items.find((k: any) => k.id === created.json.id);
    assert.equal(listed.key, undefined);
    assert.equal(listed.rateLimitPerMinute, 7);
    assert.deepEqual(listed.policy, { block: ['test_fail'] });
    const upd = await s.admin('PATCH', `/keys/${created.json.id}`, { rateLimitPerMinute: 9, budget: null, policy: { allow: ['*'] } });
    assert.equal(upd.status, 200);
    assert.equal(upd.json.rateLimitPerMinute, 9);
    assert.equal(upd.json.budget, null);
    const call = await s.call('GET', '/api/v2/balance', { key: created.json.key });
    assert.equal(call.headers['x-ratelimit-limit'], '9');
    assert.equal((await s.admin('POST', '/keys', { credits: 5 })).status, 400);
    assert.equal((await s.admin('PATCH', `/keys/${created.json.id}`, { policy: { allow: 'x' } })).status, 400);
    assert.equal((await s.admin('GET', '/keys/key_missing')).status, 404);
    assert.equal((await request(s.url + '/admin/keys', 'GET', { token: 'wrong' })).status, 401);
    const usage = await s.admin('GET', `/keys/${keyId}/usage?limit=5`);
    assert.equal(usage.status, 200);
    assert.ok(usage.json.items.length > 0);
  });

  it('health and readiness answer without a key', async () => {
    assert.equal((await request(s.url + '/healthz', 'GET')).status, 200);
    assert.deepEqual((await request(s.url + '/readyz', 'GET')).json, { status: 'ready' });
  });
});

describe('without ADMIN_TOKEN', () => {
  it('the admin HTTP API is off', async () => {
    const s = await startServer({ env: { ADMIN_TOKEN: '' } });
    try {
      const r = await request(s.url + '/admin/keys', 'POST', { token: 'anything', body: { name: 'x' } });
      assert.equal(r.status, 404);
    } finally {
      await s.close();
    }
  });
});
