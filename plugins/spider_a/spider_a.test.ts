/** spider_a: the real client against the loopback fake of its contract (contracts §6). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import plugin from './index.js';
import { startSpiderAFake, type SpiderAFake } from './fake.js';
import { createHttpEngineWith } from '../../core/engines/http/index.js';
import { ServiceError } from '../../core/errors.js';
import type { Engines } from '../../core/engines/types.js';

let fake: SpiderAFake;
const http = createHttpEngineWith({ env: {} });

before(async () => {
  fake = await startSpiderAFake();
});
after(async () => {
  await fake.close();
  await http.close();
});

/** Runs one endpoint the way the executor does: validated input and output, a usage recorder. */
async function run(operation: string, input: unknown, config: Record<string, string> = {}) {
  const ep = plugin.endpoints!.find((e) => e.operation === operation)!;
  assert.ok(TypeCompiler.Compile(ep.input).Check(input), 'input matches the endpoint schema');
  const units: Record<string, number> = {};
  const ctx = {
    config: { baseUrl: fake.url, apiKey: fake.apiKey, ...config },
    state: undefined,
    engines: { http } as unknown as Engines,
    log: { debug() {}, info() {}, warn() {}, error() {} },
    signal: AbortSignal.timeout(10_000),
    requestId: 'test',
    usage: { add: (u: string, n: number) => (units[u] = (units[u] ?? 0) + n), units },
    setNative() {},
  };
  const out = await ep.run(input as never, ctx as never);
  assert.ok(TypeCompiler.Compile(ep.output).Check(out), `output matches the endpoint schema: ${JSON.stringify(out).slice(0, 300)}`);
  return { out: out as any, units };
}

test('scrape posts to /v1/scrape with bearer auth and returns the page', async () => {
  const { out } = await run('scrape', { url: 'https://example.org/a' });
  assert.deepEqual({ url: out.url, status: out.status }, { url: 'https://example.org/a', status: 200 });
  assert.match(out.content, /^# Spider page \/a/);
  assert.deepEqual(fake.requests.at(-1)!.path, '/scrape');
  assert.equal(fake.requests.at(-1)!.body.return_format, 'markdown');
});

test('crawl returns pages with content and charges only those (a target 404 without body is dropped)', async () => {
  const { out, units } = await run('crawl', { url: 'https://example.org', limit: 6, depth: 1, return_format: 'text' });
  assert.equal(out.pages.length, 5);
  assert.ok(out.pages.every((p: any) => p.status === 200 && p.content.startsWith('Spider page')));
  assert.deepEqual(units, { pages: 5 });
  assert.deepEqual(fake.requests.at(-1)!.body, { url: 'https://example.org', limit: 6, depth: 1, return_format: 'text', request: 'smart' });
});

test('links lists page links; crawl_site mapping produces the capability shape', async () => {
  const { out } = await run('links', { url: 'https://example.org' });
  assert.deepEqual(out.pages[0].links, ['https://example.org/x', 'https://example.org/y']);
  const impl = plugin.implements!.find((i) => i.capability === 'crawl_site')!;
  assert.deepEqual(impl.mapInput!({ url: 'https://e.org', limit: 3, format: 'raw' }), { url: 'https://e.org', limit: 3, depth: 2, return_format: 'raw' });
  const mapped = impl.mapOutput!({ pages: [{ url: 'https://e.org', status: 200, content: 'x' }] }, { url: 'https://e.org', limit: 3 });
  assert.equal(mapped.creditUsage, 10);
  assert.equal(mapped.pages, 1);
});

test('errors map to the catalogue: bad key 500, 429 → 503, 5xx → 502, bad input 400', async () => {
  const status = async (p: Promise<unknown>) => p.then(() => 200, (e) => (assert.ok(e instanceof ServiceError, String(e)), e.status));
  assert.equal(await status(run('crawl', { url: 'https://example.org' }, { apiKey: 'nope' })), 500);
  assert.equal(await status(run('crawl', { url: 'ftp://example.org' })), 400);
  fake.failWith = 429;
  assert.equal(await status(run('crawl', { url: 'https://example.org' })), 503);
  fake.failWith = 502;
  assert.equal(await status(run('crawl', { url: 'https://example.org' })), 502);
  fake.failWith = undefined;
});
