/**
 * The MCP lane, black-box with the SDK's own client against the real server (issue 17): the
 * handshake, tools from the registry filtered by key policy, scrape and run-js-code through the
 * executor with credits and usage rows, spec error texts as tool errors, 401s, the rate limit as
 * a tool error, cancellation releasing the reservation, and the discovery mode.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { clearOfMinuteTurn } from './helpers/rate-window.js';
import { testServiceConfig } from './fixtures/test-plugins.js';

/** The web and code lanes, creator_a (unconfigured: no key) and the test echo plugins. */
function mcpConfig() {
  const real = pluginsConfig(['web', 'code', 'creator_a']);
  const t = testServiceConfig();
  return { ...real, plugins: { ...t.plugins, ...real.plugins }, providerOrder: t.providerOrder };
}

let s: TestServer;
let page: http.Server;
let pageUrl: string;
const open: Client[] = [];

async function connect(key: string, query = ''): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp${query}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  open.push(client);
  return { client, transport };
}

const call = (client: Client, name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
  client.callTool({ name, arguments: args }, undefined, signal ? { signal } : undefined) as Promise<CallToolResult>;
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const balance = async (key: string) => (await s.call('GET', '/api/v2/balance', { key })).json.data as { credits: number; reserved: number };
const usage = async (key: string) => (await s.call('GET', '/api/v2/usage?limit=100', { key })).json.data.items.filter((r: any) => r.lane === 'mcp');

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

before(async () => {
  page = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html><head><title>MCP page</title></head><body><h1>Agents welcome</h1><p>Scraped through the MCP lane.</p></body></html>');
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', () => r()));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/page`;
  s = await startServer({ serviceConfig: mcpConfig(), env: { ALLOW_PRIVATE_NETWORK: 'true' } });
});

after(async () => {
  await Promise.allSettled(open.map((c) => c.close()));
  await s.close();
  await new Promise((r) => page.close(r));
});

describe('MCP lane', () => {
  it('initializes over Streamable HTTP (current revision) with a stateless session id and the rate-limit headers', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const { client, transport } = await connect(key);
    assert.equal(client.getServerVersion()?.name, 'content-intelligence-api');
    assert.ok(client.getServerCapabilities()?.tools);
    assert.match(client.getInstructions() ?? '', /credits/);
    assert.equal(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.match(transport.sessionId ?? '', /^[A-Za-z0-9_-]{20,}$/);
    const raw = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    assert.equal(raw.status, 200);
    assert.ok(raw.headers.get('x-ratelimit-limit'));
    assert.ok(raw.headers.get('x-request-id'));
    await raw.text();
    // GET (server stream) and DELETE do not exist in stateless mode.
    assert.equal((await fetch(`${s.url}/mcp`, { headers: { authorization: `Bearer ${key}` } })).status, 405);
    // DNS-rebinding defence of the transport: a browser page of another origin is refused.
    const foreign = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, origin: 'http://evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    assert.equal(foreign.status, 403);
  });

  it('lists one tool per capability and v1-only job with schemas and cost; a key policy hides what it blocks', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const { client } = await connect(key);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['scrape_page', 'screenshot', 'crawl_site', 'run_js_code', 'run_python_code', 'test_echo']) assert.ok(byName.has(name), name);
    const scrape = byName.get('scrape_page')!;
    assert.equal(scrape.inputSchema.type, 'object');
    assert.ok((scrape.inputSchema.properties as Record<string, unknown>).url);
    assert.equal(scrape.outputSchema?.type, 'object');
    assert.match(scrape.description ?? '', /Cost: 10 credits; \+5 per page read by OCR when the URL serves a scanned document; \+100 when changeTracking json mode extracts\./);
    assert.match(byName.get('run_js_code')!.description ?? '', /50 credits per call/);
    // Unconfigured on this deployment (no key): not offered as tools.
    assert.ok(!byName.has('creator_a__clipsite_profile'));
    assert.ok(!byName.has('clipsite_video_comments'));

    const blocked = await s.createKey({ credits: 100, policy: { block: ['code', 'scrape_page'] } });
    const { client: limitedClient } = await connect(blocked.key);
    const names = (await limitedClient.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes('run_js_code') && !names.includes('run_python_code') && !names.includes('scrape_page'), names.join());
    assert.ok(names.includes('screenshot') && names.includes('test_echo'));
    // Calling a hidden tool anyway is the spec's policy answer, free.
    const denied = await call(limitedClient, 'run_js_code', { code: 'console.log(1)' });
    assert.equal(denied.isError, true);
    assert.equal(text(denied), 'Provider not allowed for this API key');
    assert.equal((await balance(blocked.key)).credits, 100);
  });

  it('scrapes a loopback page and runs JavaScript through the executor: structured output, credits, usage rows', async () => {
    const { key } = await s.createKey({ credits: 1000 });
    const { client } = await connect(key);
    const scraped = await call(client, 'scrape_page', { url: pageUrl, format: 'markdown', renderJs: false });
    assert.equal(scraped.isError, undefined);
    const data = scraped.structuredContent as { title: string; content: string; url: string };
    assert.equal(data.title, 'MCP page');
    assert.match(data.content, /Agents welcome/);
    assert.deepEqual(JSON.parse(text(scraped)), data);
    assert.equal((scraped._meta as any).credits, 10);
    assert.equal((scraped._meta as any).provider, 'web');

    const ran = await call(client, 'run_js_code', { code: 'console.log(6 * 7)', requestSource: 'AGENT_LIVE' });
    assert.deepEqual((ran.structuredContent as any).logs.stdout, ['42']);
    assert.equal((ran._meta as any).credits, 50);

    const after = await balance(key);
    assert.deepEqual([after.credits, after.reserved], [940, 0]);
    const rows = await usage(key);
    const js = rows.find((r: any) => r.objectId === 'run_js_code');
    const sc = rows.find((r: any) => r.objectId === 'scrape_page');
    assert.deepEqual([sc.objectType, sc.status, sc.credits, sc.provider, sc.requestSource], ['capability', 200, 10, 'web', 'mcp']);
    assert.deepEqual([js.status, js.credits, js.provider, js.requestSource], [200, 50, 'code', 'AGENT_LIVE']);
    assert.equal(js.requestId, (ran._meta as any).requestId);
  });

  it('answers invalid arguments and unusable targets as tool errors with the spec texts, free', async () => {
    const { key } = await s.createKey({ credits: 500 });
    const { client } = await connect(key);
    const noCode = await call(client, 'run_js_code', {});
    assert.equal(noCode.isError, true);
    assert.equal(text(noCode), 'code parameter is required');
    assert.equal((noCode._meta as any).code, 'INVALID_INPUT');
    const noUrl = await call(client, 'scrape_page', { format: 'markdown' });
    assert.equal(noUrl.isError, true);
    assert.equal(text(noUrl), "'url' parameter is required and must be a non-empty string.");
    // A v1-only job whose provider has no key: the spec's 500 text, as a tool error.
    const profile = await call(client, 'creator_a__clipsite_profile', { handle: 'someone' });
    assert.equal(text(profile), 'Service not configured. Please contact support.');
    const thrown = await call(client, 'run_js_code', { code: 'throw new TypeError("boom")' });
    assert.equal(thrown.isError, true);
    assert.match(text(thrown), /^TypeError: boom/);
    assert.equal((thrown._meta as any).error.name, 'TypeError');
    await assert.rejects(call(client, 'no_such_tool', {}), /Unknown tool: no_such_tool/);
    assert.equal((await balance(key)).credits, 500);
    const codes = (await usage(key)).map((r: any) => `${r.objectId} ${r.status} ${r.code} ${r.credits}`).sort();
    assert.deepEqual(codes, ['creator_a.clipsite_profile 500 NOT_CONFIGURED 0', 'run_js_code 400 INVALID_INPUT 0', 'run_js_code 500 CODE_EXECUTION_ERROR 0', 'scrape_page 400 INVALID_INPUT 0']);
  });

  it('a key that cannot pay gets the spec 403 text as a tool error, nothing reserved', async () => {
    const { key } = await s.createKey({ credits: 5 });
    const { client } = await connect(key);
    const poor = await call(client, 'test_echo', { text: 'x' });
    assert.equal(poor.isError, true);
    assert.equal(text(poor), 'Insufficient credits. Please top up your account.');
    assert.deepEqual([(poor._meta as any).code, (poor._meta as any).status], ['INSUFFICIENT_CREDITS', 403]);
    const b = await balance(key);
    assert.deepEqual([b.credits, b.reserved], [5, 0]);
  });

  it('refuses a missing or bad key with 401 before any MCP message is read', async () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(`${s.url}/mcp`, { method: 'POST', headers, body: init });
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await none.json()).error.message, 'Invalid or missing Authorization header');
    const bad = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer cia_not_a_key' }, body: init });
    assert.equal(bad.status, 401);
    assert.equal((await bad.json()).error.message, 'API key is invalid or missing.');
    await assert.rejects(connect('cia_not_a_key'), (err: { code?: number; message: string }) => err.code === 401 && /API key is invalid or missing\./.test(err.message));
  });

  it('turns the key rate limit into a tool error, uncharged and recorded', async () => {
    // initialize + initialized notification + two calls fit in 4; the fifth request is refused.
    await clearOfMinuteTurn();
    const { key, id } = await s.createKey({ credits: 500, rateLimitPerMinute: 4 });
    const { client } = await connect(key);
    assert.equal((await call(client, 'test_echo', { text: 'a' })).isError, undefined);
    assert.equal((await call(client, 'test_echo', { text: 'b' })).isError, undefined);
    const refused = await call(client, 'test_echo', { text: 'c' });
    assert.equal(refused.isError, true);
    assert.equal(text(refused), 'Rate limit exceeded. Please try again later.');
    assert.equal((refused._meta as any).code, 'RATE_LIMITED');
    assert.ok((refused._meta as any).retryAfter >= 1);
    // Anything but a tool call over the limit is the plain HTTP 429.
    await assert.rejects(client.listTools(), (err: { code?: number }) => err.code === 429);
    // The key's own reads are limited too: the operator's view.
    assert.equal((await s.admin('GET', `/keys/${id}`)).json.credits, 480);
    const rows = (await s.admin('GET', `/keys/${id}/usage`)).json.items.filter((r: any) => r.lane === 'mcp');
    assert.deepEqual(rows.map((r: any) => `${r.status} ${r.code} ${r.credits}`), ['429 RATE_LIMITED 0', '200 null 10', '200 null 10']);
  });

  it('a cancelled call (notification, or the client going away) releases its reservation', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const { client } = await connect(key);
    const abort = new AbortController();
    const slow = call(client, 'test_echo', { text: 'slow', delayMs: 30_000 }, abort.signal);
    await until(async () => (await balance(key)).reserved === 10, 'the reservation');
    abort.abort('user pressed stop');
    await assert.rejects(slow);
    await until(async () => (await balance(key)).reserved === 0, 'the release after cancellation');
    assert.equal((await balance(key)).credits, 100);

    const { client: other } = await connect(key);
    const gone = call(other, 'test_echo', { text: 'slow', delayMs: 30_000 });
    gone.catch(() => undefined);
    await until(async () => (await balance(key)).reserved === 10, 'the second reservation');
    await other.close();
    await until(async () => (await balance(key)).reserved === 0, 'the release after disconnect');
    assert.equal((await balance(key)).credits, 100);
    await until(async () => (await usage(key)).filter((r: any) => r.status === 499).length === 2, 'two 499 rows');
  });

  it('discovery mode offers search, details and run over the same catalogue, v1-only jobs included', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const { client } = await connect(key, '?tools=discovery');
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['search', 'details', 'run']);
    const found = await call(client, 'search', { query: 'run javascript code' });
    assert.ok((found.structuredContent as any).items.some((e: any) => e.id === 'run_js_code'));
    const details = await call(client, 'details', { id: 'creator_a.clipsite_profile' });
    assert.equal((details.structuredContent as any).configured, false);
    assert.equal((await call(client, 'details', { id: 'nope' })).isError, true);
    const ran = await call(client, 'run', { type: 'capability', id: 'test_echo', input: { text: 'via run' } });
    assert.deepEqual(ran.structuredContent, { echo: 'via run', by: 'test_echo' });
    assert.deepEqual((ran._meta as any).fallbacks, [{ provider: 'test_fail', code: 'UPSTREAM_ERROR' }]);
    const hidden = await call(client, 'run', { type: 'endpoint', id: 'code.run_js', input: { code: '1' } });
    assert.equal(text(hidden), 'Unknown endpoint: code.run_js');
    const malformed = await call(client, 'run', { type: 'capability', id: 'test_echo' });
    assert.equal(text(malformed), "Invalid input: 'input' expected required property.");
    assert.equal((await balance(key)).credits, 90);
    const bad = await fetch(`${s.url}/mcp?tools=everything`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    assert.equal(bad.status, 400);
  });

  it('a mistyped MCP_TOOLS_MODE still stops boot, though the lane itself loads at its first request', async () => {
    // A server that starts anyway is stopped, so the failure is reported rather than left running.
    const started = startServer({ serviceConfig: testServiceConfig(), env: { MCP_TOOLS_MODE: 'everything' } }).then((running) => running.close());
    await assert.rejects(started, /MCP_TOOLS_MODE must be 'all' or 'discovery' \(got 'everything'\)/);
  });
});
