/**
 * The JavaScript pool at its boundary (issue 6 audit, items 1 and 3): fetches counted where the
 * code cannot reach (in flight, bytes per run) even when the code rewrites `Map.prototype.size`,
 * and worker processes replaced after `SANDBOX_JS_RECYCLE_AFTER` runs. The `fetch` handed to the
 * engine stands in for the plugin's guarded one and records what the pool let through.
 */
import { descendsFrom, processesUsing } from '../../processes.js';

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsSandboxEngine } from './engine.js';
import { workerPids } from './worker-pids.js';
import { loadSandboxSettings } from '../settings.js';
import type { SandboxFetchRequest, SandboxFetchResponse } from '../types.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


/** Every process of this test's JS workers (launchers included), by command line. */
const workerTree = () => processesUsing('js-worker').filter((pid) => descendsFrom(pid, process.pid));

function response(req: SandboxFetchRequest, bytes: number): SandboxFetchResponse {
  return { status: 200, statusText: 'OK', url: req.url, headers: {}, body: new Uint8Array(bytes) };
}

test('fetches: at most 16 in flight and 32 MB per run, even with Map.prototype.size rewritten', async () => {
  const engine = new JsSandboxEngine(loadSandboxSettings({ SANDBOX_JS_WORKERS: '1' }), silent);
  engine.start();
  try {
    let inFlight = 0;
    let most = 0;
    const slow = async (req: SandboxFetchRequest) => {
      most = Math.max(most, ++inFlight);
      await sleep(150);
      inFlight--;
      return response(req, 2);
    };
    const many = `Object.defineProperty(Map.prototype, "size", { get: () => 0 });
const all = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => fetch("https://example.test/" + i)));
const refused = all.filter((r) => r.status === "rejected" && /too many fetches in flight/.test(r.reason.cause.message));
console.log(all.filter((r) => r.status === "fulfilled").length, refused.length)`;
    const r = await engine.run({ code: many, fetch: slow });
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.stdout, ['16 24']);
    assert.ok(most <= 16, `${most} fetches in flight`);

    let served = 0;
    const big = async (req: SandboxFetchRequest) => {
      served++;
      return response(req, 5 * 1024 * 1024);
    };
    const heavy = `for (let i = 0; i < 8; i++) {
  try { const b = await (await fetch("https://example.test/big")).arrayBuffer(); console.log("got", b.byteLength) }
  catch (e) { console.log("refused", e.cause.message) }
}`;
    const h = await engine.run({ code: heavy, fetch: big });
    assert.equal(h.error, undefined, JSON.stringify(h.error));
    // 5 MB responses (the plugin's per-response cap): six fit in 32 MB, the seventh goes over.
    assert.deepEqual(h.stdout, [
      ...Array.from({ length: 6 }, () => 'got 5242880'),
      'refused responses of this run exceed 33554432 bytes in all',
      'refused this run already fetched 33554432 bytes, the most one run may',
    ]);
    assert.equal(served, 7, 'the eighth fetch never reached the network');
    // The budget is per run: the next run fetches again.
    assert.deepEqual((await engine.run({ code: 'console.log((await (await fetch("https://example.test/big")).arrayBuffer()).byteLength)', fetch: big })).stdout, ['5242880']);
  } finally {
    await engine.close();
  }
});

test('a worker process is replaced by a fresh one after SANDBOX_JS_RECYCLE_AFTER runs', async () => {
  const engine = new JsSandboxEngine(loadSandboxSettings({ SANDBOX_JS_WORKERS: '1', SANDBOX_JS_RECYCLE_AFTER: '3' }), silent);
  engine.start();
  try {
    const seen: number[][] = [];
    // Sampled while each run is in progress: exactly the worker serving it is alive then.
    const sample = async (req: SandboxFetchRequest) => {
      seen.push(await workerPids());
      return response(req, 1);
    };
    for (let i = 0; i < 7; i++) {
      const r = await engine.run({ code: `await fetch("https://example.test/${i}"); console.log(${i})`, fetch: sample });
      assert.deepEqual(r.stdout, [String(i)], JSON.stringify(r));
    }
    assert.ok(seen.every((pids) => pids.length === 1), JSON.stringify(seen));
    const [a, b, c] = [seen[0]![0], seen[3]![0], seen[6]![0]];
    assert.deepEqual(seen.map((p) => p[0]), [a, a, a, b, b, b, c]);
    assert.equal(new Set([a, b, c]).size, 3, 'three different processes');
  } finally {
    await engine.close();
  }
});

test('a worker that dies mid-run answers that run with an error, and the next run is served by its successor', async () => {
  const engine = new JsSandboxEngine(loadSandboxSettings({ SANDBOX_JS_WORKERS: '1' }), silent);
  engine.start();
  try {
    assert.deepEqual((await engine.run({ code: 'console.log(1)' })).stdout, ['1']);
    const pending = engine.run({ code: 'await new Promise((r) => setTimeout(r, 3000)); console.log(2)' });
    await sleep(300);
    // The whole worker: its bubblewrap launcher and the node inside, as an OOM killer or an operator might.
    for (const pid of workerTree()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone with its launcher.
      }
    }
    assert.equal((await pending).error?.name, 'SandboxCrashError');
    // Sent at once, before the successor is up: it must wait for it, not go to the dead worker.
    const next = engine.run({ code: 'console.log(3)' });
    const answer = await Promise.race([next, sleep(20_000).then(() => 'no answer within 20 s')]);
    assert.deepEqual(typeof answer === 'string' ? answer : answer.stdout, ['3']);
  } finally {
    await engine.close();
  }
});

test('one owner sleeping in every worker does not hold up another owner, and surge workers leave afterwards', async () => {
  const engine = new JsSandboxEngine(loadSandboxSettings({ SANDBOX_JS_WORKERS: '2' }), silent);
  engine.start();
  try {
    await Promise.all([engine.run({ code: 'console.log(0)' }), engine.run({ code: 'console.log(0)' })]);
    const nap = 'await new Promise((r) => setTimeout(r, 5000)); console.log("slept")';
    const started = Date.now();
    // Owner a fills both workers and queues a third run before b arrives.
    const a = [1, 2, 3].map(() => engine.run({ owner: 'a', code: nap }));
    await sleep(300);
    const b = await engine.run({ owner: 'b', code: 'console.log("b")' });
    const bTook = Date.now() - started;
    assert.deepEqual(b.stdout, ['b']);
    assert.ok(bTook < 4000, `b answered after ${bTook} ms, behind a's sleeping runs`);
    const doneA = await Promise.all(a);
    for (const r of doneA) assert.deepEqual(r.stdout, ['slept'], JSON.stringify(r));
    // Nobody waits any more: the pool is back to its two workers.
    let pids = await workerPids();
    for (let i = 0; i < 40 && pids.length !== 2; i++) {
      await sleep(250);
      pids = await workerPids();
    }
    assert.equal(pids.length, 2, `worker processes: ${pids.join(', ')}`);
  } finally {
    await engine.close();
  }
});
