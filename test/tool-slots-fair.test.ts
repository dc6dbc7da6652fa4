/**
 * Issue 24 ("fair gates") through the real server, for the instance-wide tool slots
 * (`TOOLS_SLOTS`, the uid pool of core/engines/tools) rather than a lane's own gate: the lane's
 * gate is opened wide (EXTRACT_MAX_PROCESSES=64) so every tool run of a call reaches the one tool
 * slot, and the order the calls finish in shows whose runs the slot served. Key A floods two calls
 * (its most at once) of four images (16 tool runs); key B then makes one call of one image (2 runs). Served
 * first come first served, B's OCR would queue behind all of A's and B would finish last; served
 * key by key, B's runs go between A's and B finishes first. Order, not time, is asserted.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { bwrapWitness, type BwrapWitness } from './helpers/bwrap-witness.js';
import { textPng } from './fixtures/extract/make.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';

let fake: ModelFake;
let s: TestServer;
let bwrap: BwrapWitness;
const b64 = (b: Buffer) => b.toString('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const toolRuns = () => bwrap.runs();
const balance = async (key: string) => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;

before(async () => {
  fake = await startFake();
  bwrap = bwrapWitness('tool-slots-');
  s = await startServer({
    env: { ...fake.env, TOOLS_BWRAP_BIN: bwrap.bin, TOOLS_SLOTS: '1', EXTRACT_MAX_PROCESSES: '64' },
    serviceConfig: pluginsConfig(['extract']),
  });
});
after(async () => {
  await s?.close();
  await fake?.close();
  bwrap.remove();
});

test('with one tool slot, key B’s single call finishes before key A’s flood of queued tool runs', async () => {
  const a = await s.createKey({ credits: 10_000 });
  const b = await s.createKey({ credits: 10_000 });
  const page = b64(textPng('Queued page with a few words to read'));
  const finished: string[] = [];
  const runs = toolRuns();
  const flood = [1, 2].map((n) =>
    s.call('POST', '/api/v1/extract-image', { key: a.key, body: { inputMethod: 'base64', images: [page, page, page, page], prompt: 'x' } }).then((r) => (finished.push(`A${n}`), r)),
  );
  // B arrives once A's first run holds the slot and the rest of A's 16 wait for it.
  for (let i = 0; i < 600 && toolRuns() === runs; i++) await sleep(50);
  assert.ok(toolRuns() > runs, 'A’s first tool run started');
  const single = await s.call('POST', '/api/v1/extract-image', { key: b.key, body: { inputMethod: 'base64', images: [page], prompt: 'x' } });
  finished.push('B');
  assert.equal(single.status, 200, single.text);
  for (const r of await Promise.all(flood)) assert.equal(r.status, 200, r.text);
  assert.equal(finished[0], 'B', `finish order ${finished.join(', ')}`);
  assert.equal(toolRuns() - runs, 18, 'two runs per image (downscale, OCR), none skipped');
  // Every call was served and charged once: 100 + 10 per image.
  assert.deepEqual([await balance(a.key), await balance(b.key)], [10_000 - 2 * 140, 10_000 - 110]);
});
