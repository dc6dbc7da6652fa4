/** shot_a: the real client against the loopback fake of its contract (contracts §7a). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import plugin from './index.js';
import { startShotAFake, type ShotAFake } from './fake.js';
import { createHttpEngineWith } from '../../core/engines/http/index.js';
import { createFileStore } from '../../core/engines/files/index.js';
import { ServiceError } from '../../core/errors.js';
import type { Engines } from '../../core/engines/types.js';

let fake: ShotAFake;
let dataDir: string;
let files: ReturnType<typeof createFileStore>;
const http = createHttpEngineWith({ env: {} });
const log = { debug() {}, info() {}, warn() {}, error() {} };

before(async () => {
  fake = await startShotAFake();
  dataDir = await mkdtemp(join(tmpdir(), 'shot-a-'));
  files = createFileStore({ dataDir, env: {}, log, publicBaseUrl: () => 'http://files.test' });
});
after(async () => {
  await fake.close();
  await http.close();
  await files.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function run(input: unknown, config: Record<string, string> = {}) {
  const ep = plugin.endpoints![0]!;
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

test('screenshot sends the key in a header and options as JSON; the PNG lands in the file store', async () => {
  const { out, units } = await run({ url: 'https://example.org', viewport: { width: 640, height: 480 }, wait: 1500 });
  const sent = fake.requests.at(-1)!;
  assert.deepEqual(sent, { url: 'https://example.org', format: 'png', full_page: false, response_type: 'by_format', wait_until: 'load', viewport_width: 640, viewport_height: 480, delay: 2 });
  assert.equal(out.contentType, 'image/png');
  assert.match(out.url, /^http:\/\/files\.test\/files\/[\w-]+\.?\w*\?/);
  const id = new URL(out.url).pathname.split('/').pop()!;
  const opened = await files.open(id, new URL(out.url).searchParams.get('expires')!, new URL(out.url).searchParams.get('sig')!);
  const png = (await import('node:fs')).readFileSync(opened.path);
  assert.equal(png.readUInt32BE(16), 640);
  assert.equal(png.readUInt32BE(20), 480);
  assert.equal(units.output_bytes, png.length);
});

test('error codes map to the catalogue', async () => {
  const status = (p: Promise<unknown>) => p.then(() => 200, (e) => (assert.ok(e instanceof ServiceError, String(e)), `${e.status} ${e.message}`));
  assert.equal(await status(run({ url: 'https://example.org' }, { apiKey: 'bad' })), '500 Service authentication failed. Please contact support.');
  fake.failWith = 'concurrency_limit_reached';
  assert.equal(await status(run({ url: 'https://example.org' })), '503 Rate limit exceeded. Please try again later.');
  fake.failWith = 'name_not_resolved';
  assert.match(await status(run({ url: 'https://nowhere.invalid' })) as string, /^400 shot_a rejected the request/);
  fake.failWith = 'host_returned_error';
  assert.match(await status(run({ url: 'https://example.org' })) as string, /^502 Failed to retrieve the screenshot from shot_a/);
  fake.failWith = undefined;
});
