/** browser_a: the real client against the loopback fake of its contract (contracts §7b). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import plugin from './index.js';
import { startBrowserAFake, type BrowserAFake } from './fake.js';
import { createHttpEngineWith } from '../../core/engines/http/index.js';
import { createFileStore } from '../../core/engines/files/index.js';
import { ServiceError } from '../../core/errors.js';
import type { Engines } from '../../core/engines/types.js';

let fake: BrowserAFake;
let dataDir: string;
let files: ReturnType<typeof createFileStore>;
const http = createHttpEngineWith({ env: {} });
const log = { debug() {}, info() {}, warn() {}, error() {} };

before(async () => {
  fake = await startBrowserAFake();
  dataDir = await mkdtemp(join(tmpdir(), 'browser-a-'));
  files = createFileStore({ dataDir, env: {}, log, publicBaseUrl: () => 'http://files.test' });
});
after(async () => {
  await fake.close();
  await http.close();
  await files.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function run(operation: string, input: unknown, config: Record<string, string> = {}) {
  const ep = plugin.endpoints!.find((e) => e.operation === operation)!;
  assert.ok(TypeCompiler.Compile(ep.input).Check(input));
  const units: Record<string, number> = {};
  const ctx = {
    config: { baseUrl: fake.url, apiKey: fake.apiKey, ...config },
    engines: { http, files } as unknown as Engines,
    log,
    signal: AbortSignal.timeout(10_000),
    requestId: 'test',
    usage: { add: (u: string, n: number) => (units[u] = (units[u] ?? 0) + n), units },
    setNative() {},
  };
  const out = await ep.run(input as never, ctx as never);
  assert.ok(TypeCompiler.Compile(ep.output).Check(out), JSON.stringify(out));
  return { out: out as any, units };
}

test('screenshot posts Puppeteer options with the token in the query; the PNG is stored', async () => {
  const { out } = await run('screenshot', { url: 'https://example.org', fullPage: true, viewport: { width: 320, height: 200 }, wait: 250 });
  const sent = fake.requests.at(-1)!;
  assert.equal(sent.path, '/screenshot');
  assert.equal(sent.query.token, fake.apiKey);
  assert.deepEqual(sent.body, { url: 'https://example.org', options: { type: 'png', fullPage: true }, gotoOptions: { waitUntil: 'load' }, viewport: { width: 320, height: 200 }, waitForTimeout: 250 });
  const u = new URL(out.url);
  const opened = await files.open(u.pathname.split('/').pop()!, u.searchParams.get('expires')!, u.searchParams.get('sig')!);
  const png = readFileSync(opened.path);
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [320, 400]);
});

test('scrape returns matches per selector', async () => {
  const { out } = await run('scrape', { url: 'https://example.org', elements: [{ selector: 'h1' }, { selector: 'p' }] });
  assert.deepEqual(out.data.map((d: any) => d.selector), ['h1', 'p']);
  assert.equal(out.data[0].results[0].text, 'Fake https://example.org');
});

test('plain-text errors map to the catalogue and never show the token', async () => {
  const status = (p: Promise<unknown>) => p.then(() => '200', (e) => (assert.ok(e instanceof ServiceError, String(e)), `${e.status} ${e.message}`));
  assert.equal(await status(run('screenshot', { url: 'https://example.org' }, { apiKey: 'wrong' })), '500 Service authentication failed. Please contact support.');
  fake.failWith = 429;
  assert.equal(await status(run('screenshot', { url: 'https://example.org' })), '503 Rate limit exceeded. Please try again later.');
  fake.failWith = 408;
  assert.equal(await status(run('scrape', { url: 'https://example.org' })), '502 Failed to retrieve the page through browser_a: the request timed out.');
  fake.failWith = undefined;
  const down = await status(run('screenshot', { url: 'https://example.org' }, { baseUrl: 'http://127.0.0.1:1' }));
  assert.match(down, /^502 Failed to retrieve http:\/\/127\.0\.0\.1:1\/screenshot: connection refused\.$/);
  assert.doesNotMatch(down, /token/);
});
