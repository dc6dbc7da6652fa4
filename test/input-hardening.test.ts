/**
 * Hostile input that used to end in a 500 or grow the instance (issue 24 findings 7–10), through
 * the real server: JSON nested past the limit on every lane, a `validate` hook meeting a field
 * of the wrong type, made-up ids that became metric series, MCP `tools/call` params of the wrong
 * shape; and the MCP lane reading blank optional fields as not given, as v1 does (issue 28).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startFake, type SearchAFake } from '../plugins/search_a/fake.js';

const TOO_DEEP = 'Invalid input: JSON nested deeper than 64 levels.';
const nest = (levels: number, open = '[', close = ']', inner = '1') => open.repeat(levels) + inner + close.repeat(levels);
const objects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

let s: TestServer;
let fake: SearchAFake;
let key: string;

async function mcp(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  // The transport answers a POST as an event stream: the JSON-RPC message is its data line.
  const data = text.split('\n').find((l) => l.startsWith('data: '));
  return { status: res.status, json: JSON.parse(data ? data.slice(6) : text) };
}

before(async () => {
  fake = await startFake();
  // No pace on refused lookups: the metric-label test sends 80 made-up ids from one key, and what
  // it checks is the labels, not when the answers come (test/key-refusal-pace.test.ts does that).
  s = await startServer({ serviceConfig: pluginsConfig(['web', 'search_a', 'transcript_a', 'videosite_native', 'code']), env: { ...fake.env, ALLOW_PRIVATE_NETWORK: 'true', KEY_REFUSALS_PER_SECOND: '0' } });
  ({ key } = await s.createKey({ credits: 10_000 }));
});
after(async () => {
  await s?.close();
  await fake?.close();
});

describe('deep JSON (finding 7)', () => {
  it('every v1 POST route answers 400 with the limit for 10,000 levels of arrays, objects or a mix; nothing is charged', async () => {
    const posts = s.routes.filter((r) => r.method === 'POST' && r.url.startsWith('/api/v1/'));
    assert.ok(posts.length >= 30, `v1 POST routes: ${posts.length}`);
    const bodies = [`{"url":${nest(10_000)}}`, objects(10_000), `{"files":[${nest(5_000, '[{"x":', '}]')}]}`];
    for (const [i, r] of posts.entries()) {
      const res = await s.call('POST', r.url, { key, rawBody: bodies[i % bodies.length] });
      assert.equal(res.status, 400, `${r.url}: ${res.text}`);
      assert.deepEqual(res.json, { error: TOO_DEEP }, r.url);
    }
    const b = await s.call('GET', '/api/v2/balance', { key });
    assert.equal(b.json.data.credits, 10_000);
  });

  it('v2, admin and MCP answer the same 400 in their own shapes; 64 levels are still accepted', async () => {
    const v2 = await s.call('POST', '/api/v2/run', { key, rawBody: `{"type":"capability","id":"search_news","input":{"query":${nest(65)}}}` });
    assert.equal(v2.status, 400);
    assert.equal(v2.json.code, 'INVALID_INPUT');
    assert.equal(v2.json.error, TOO_DEEP);
    const admin = await s.call('POST', '/admin/keys', { key: s.adminToken, rawBody: `{"name":"x","policy":${objects(200)}}` });
    assert.equal(admin.status, 400, admin.text);
    assert.match(admin.text, /nested deeper than 64 levels/);
    const m = await mcp(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_news","arguments":{"query":${nest(10_000)}}}}`);
    assert.equal(m.status, 400);
    assert.equal(m.json.error.message, TOO_DEEP);
    // Just inside the limit: the answer is about the field, not the nesting.
    const ok = await s.call('POST', '/api/v1/search-news', { key, rawBody: `{"query":${nest(62)}}` });
    assert.equal(ok.status, 400);
    assert.notEqual(ok.json.error, TOO_DEEP);
  });
});

describe('validate hooks see only schema-checked input (finding 8)', () => {
  for (const [path, body] of [
    ['/api/v1/videosite/channel-videos', { url: 1 }],
    ['/api/v1/videosite/channel-videos', { url: { href: 'x' } }],
    ['/api/v1/videosite/channel/shorts', { url: [] }],
    ['/api/v1/videosite/channel', { url: true }],
    ['/api/v1/videosite/video', { url: 5 }],
  ] as const) {
    it(`${path} ${JSON.stringify(body)} → 400 naming the field`, async () => {
      const res = await s.call('POST', path, { key, body });
      assert.equal(res.status, 400, res.text);
      assert.match(res.json.error, /url/);
    });
  }
  it('the same through the MCP tool', async () => {
    const res = await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'videosite_channel_videos', arguments: { url: 1 } } });
    assert.equal(res.json.result.isError, true);
    assert.equal(res.json.result._meta.status, 400, JSON.stringify(res.json.result));
  });
});

describe('metric labels stay bounded (finding 9)', () => {
  it('made-up ids on /api/v2/run and MCP run are counted as target="unknown", never as series of their own', async () => {
    const metrics = async () => (await s.call('GET', '/metrics', { key: s.adminToken })).text;
    for (let i = 0; i < 40; i++) {
      const res = await s.call('POST', '/api/v2/run', { key, body: { type: i % 2 ? 'endpoint' : 'capability', id: `made_up_${i}`, input: {} } });
      assert.equal(res.status, 404);
    }
    await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'run', arguments: { type: 'capability', id: 'made_up_mcp', input: {} } } }, {});
    const first = await metrics();
    assert.doesNotMatch(first, /made_up/);
    assert.match(first, /cia_calls_total\{lane="v2",target="unknown",provider="",status="404",code="NOT_FOUND"\} 40/);
    // The per-call series (process-level metrics such as GC counters come and go on their own).
    const series = (text: string) => text.split('\n').filter((l) => /^cia_(calls_total|call_duration_seconds_count|credits_charged_total|refusals_total)\{/.test(l)).length;
    const lines = series(first);
    for (let i = 40; i < 80; i++) await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: `made_up_${i}`, input: {} } });
    const second = await metrics();
    assert.equal(series(second), lines, 'no new series');
    assert.match(second, /cia_calls_total\{lane="v2",target="unknown",provider="",status="404",code="NOT_FOUND"\} 80/);
  });
});

describe('MCP tools/call with params of the wrong shape (finding 10)', () => {
  for (const args of [[], null, 's', 1, true]) {
    it(`arguments ${JSON.stringify(args)} → −32602 with one short sentence`, async () => {
      const res = await mcp({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search_news', arguments: args } });
      assert.equal(res.status, 200);
      assert.equal(res.json.id, 3);
      assert.equal(res.json.error.code, -32602);
      assert.equal(res.json.error.message, "Invalid params: 'arguments' must be an object of the tool's input fields.");
    });
  }
  it('a missing or non-string name, or params that are not an object, are −32602 too', async () => {
    // (params that are not an object at all fail the transport's own message check first.)
    for (const params of [{ arguments: {} }, { name: 5 }, { name: '' }]) {
      const res = await mcp({ jsonrpc: '2.0', id: 4, method: 'tools/call', params });
      assert.equal(res.json.error.code, -32602, JSON.stringify(params));
      assert.ok(res.json.error.message.length < 120);
      assert.doesNotMatch(res.json.error.message, /expected|invalid_type|\[/);
    }
  });
});

describe('MCP blank optional fields (issue 28)', () => {
  it('search_news {"query":"x","country":""} is served as on v1 (country not given), null likewise', async () => {
    const v1 = await s.call('POST', '/api/v1/search-news', { key, body: { query: 'x', country: '' } });
    assert.equal(v1.status, 200, v1.text);
    for (const country of ['', null]) {
      const res = await mcp({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'search_news', arguments: { query: 'x', country, page: null } } });
      assert.equal(res.json.result.isError, undefined, JSON.stringify(res.json.result));
      assert.ok(!('gl' in fake.requests.at(-1)!.body), 'no country forwarded');
    }
  });
});

describe('MCP Origin check does not trust Host (finding 11)', () => {
  /** A POST to /mcp with exactly these Origin and Host headers (fetch would not let Host be set). */
  const post = (origin: string, host: string) =>
    new Promise<number>((resolve, reject) => {
      const u = new URL(`${s.url}/mcp`);
      const req = http.request({ hostname: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { origin, host, authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
  it('a rebinding page (its own name as Origin and Host) is refused; loopback origins pass', async () => {
    const port = new URL(s.url).port;
    assert.equal(await post(`http://rebind.example:${port}`, `rebind.example:${port}`), 403);
    assert.equal(await post(`https://attacker.test`, 'attacker.test'), 403);
    assert.equal(await post(`http://localhost.attacker.test:${port}`, `localhost.attacker.test:${port}`), 403);
    assert.equal(await post(`http://127.0.0.1:${port}`, `127.0.0.1:${port}`), 200);
    assert.equal(await post(`http://localhost:5173`, `127.0.0.1:${port}`), 200);
  });
});
