/**
 * The compute pool: registered work runs off the main thread; overruns, aborts and heap
 * exhaustion cost one worker; the engine runs only modules handed to it by absolute URL and no
 * engine source names a plugin's file.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createComputeEngine } from './index.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const engine = createComputeEngine({ dataDir: '/tmp', publicBaseUrl: () => '', env: { COMPUTE_WORKERS: '1', COMPUTE_TIMEOUT_MS: '1500', COMPUTE_MEMORY_MB: '128' }, log: silent });
const work = engine.register<typeof import('./compute-fixture.js')>(new URL('./compute-fixture.js', import.meta.url));
after(() => engine.close());

describe('compute engine', () => {
  it('calls an export of a registered module in a worker thread and returns its result', async () => {
    assert.deepEqual(await work.run('sum', [1, 2, 3]), { total: 6, mainThread: false });
    assert.equal(engine.register(new URL('./compute-fixture.js', import.meta.url)), work, 'registering a URL twice gives the same handle');
  });

  it('keeps the main thread free while the work runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const busy = await work.run('spin', 400);
    clearInterval(timer);
    assert.ok(busy >= 400);
    assert.ok(ticks >= 5, `the main thread ran ${ticks} timer ticks during 400 ms of work`);
  });

  it('runs the work at the COMPUTE_NICE priority (default 5) while the serving thread keeps its own', async () => {
    // getPriority(pid) reads the main thread's value on Linux, getPriority(0) the calling thread's.
    const own = (await import('node:os')).getPriority(0);
    assert.deepEqual(await work.run('niceness', undefined), { thread: Math.min(19, own + 5), process: own });
    const plain = createComputeEngine({ dataDir: '/tmp', publicBaseUrl: () => '', env: { COMPUTE_WORKERS: '1', COMPUTE_NICE: '0' }, log: silent });
    try {
      const w = plain.register<typeof import('./compute-fixture.js')>(new URL('./compute-fixture.js', import.meta.url));
      assert.deepEqual(await w.run('niceness', undefined), { thread: own, process: own });
    } finally {
      await plain.close();
    }
  });

  it('an error thrown by the work reaches the caller with its name and message', async () => {
    await assert.rejects(work.run('fail', 'bad page'), { name: 'RangeError', message: 'bad page' });
    // @ts-expect-error: not an export of the module; the type check refuses it too.
    await assert.rejects(work.run('missing', null), /compute-fixture\.(js|ts) has no exported function missing/);
    await assert.rejects(work.run('unclonable', undefined), { name: 'DataCloneError', message: /unclonable returned a value that cannot leave the worker/ });
    assert.deepEqual(await work.run('sum', [4]), { total: 4, mainThread: false }, 'the worker survived');
  });

  it('takes modules by absolute URL only; one that cannot load fails its calls, not the worker', async () => {
    assert.throws(() => engine.register('./compute-fixture.js'), /absolute URL/);
    const missing = engine.register<{ f(x: number): number }>(new URL('./no-such-module.js', import.meta.url));
    await assert.rejects(missing.run('f', 1), /no-such-module/);
    assert.deepEqual(await work.run('sum', [7]), { total: 7, mainThread: false });
  });

  it('a call past its time, an aborted call and an exhausted heap each cost one worker; the next call is served', async () => {
    await assert.rejects(work.run('spin', 60_000), { code: 'UPSTREAM_ERROR', message: 'The content could not be processed within 2 s.' });
    assert.deepEqual(await work.run('sum', [2]), { total: 2, mainThread: false });
    const ctl = new AbortController();
    const aborted = work.run('spin', 60_000, { signal: ctl.signal });
    setTimeout(() => ctl.abort(new Error('caller left')), 100);
    await assert.rejects(aborted, /caller left/);
    // Its own, longer time limit: filling the heap may take a while on a loaded machine.
    const before = engine.stats();
    await assert.rejects(work.run('hog', undefined, { timeoutMs: 60_000 }), { code: 'UPSTREAM_ERROR', message: 'The content is too large to process.' });
    assert.deepEqual(await work.run('sum', [5, 5]), { total: 10, mainThread: false });
    // The overrun and the abort were kills; the heap exhaustion is the worker dying on its own.
    const after = engine.stats();
    assert.deepEqual([before.kills, after.kills - before.kills, after.crashes - before.crashes, after.jobs - before.jobs], [2, 0, 1, 2]);
    assert.deepEqual([after.queued, after.active, after.workers], [0, 0, 1]);
  });

  it('serves waiting calls owner by owner: a key with a backlog delays another key\'s first call by one call at most', async () => {
    const order: string[] = [];
    const run = (name: string, owner: string, arg: number[]) => work.run('sum', arg, { owner }).then(() => order.push(name));
    const first = work.run('spin', 300, { owner: 'a' }).then(() => order.push('a1'));
    const rest = [run('a2', 'a', [1]), run('a3', 'a', [2]), run('b1', 'b', [3])];
    await Promise.all([first, ...rest]);
    assert.deepEqual(order, ['a1', 'b1', 'a2', 'a3']);
  });

  it('one owner may fill only its part of the queue; others are still queued', async () => {
    const held = work.run('spin', 300, { owner: 'flood' });
    const flood = Array.from({ length: 70 }, () => work.run('sum', [1], { owner: 'flood' }).then(() => 'ok', (e: Error) => (e as { code?: string }).code));
    const other = work.run('sum', [1], { owner: 'other' });
    const outcomes = await Promise.all(flood);
    assert.deepEqual((await other).total, 1);
    await held;
    assert.equal(outcomes.filter((o) => o === 'ok').length, 64, 'the owner\'s part of the queue is a quarter of it');
    assert.ok(outcomes.slice(64).every((o) => o === 'BUSY'));
  });

  it('moves buffers both ways when asked: the argument\'s are emptied here, the result\'s arrive whole', async () => {
    const arg = new Uint8Array([1, 2, 3]);
    const moved = await work.run('plusOne', arg, { transfer: [arg.buffer], transferResult: true });
    assert.deepEqual([...moved.out], [2, 3, 4]);
    assert.equal(arg.byteLength, 0, 'the argument\'s buffer went to the worker');
    const copied = new Uint8Array([5]);
    assert.deepEqual([...(await work.run('plusOne', copied)).out], [6]);
    assert.equal(copied.byteLength, 1, 'without a transfer list the argument is copied');
  });

  it('no engine source names or locates a file under plugins/ (engines know nothing of plugins)', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|js|mjs|cjs|py)$/.test(e.name) && /['"`](?:\.\.\/)+plugins\/|\bplugins\/[a-z0-9_]+\/[\w.-]+\.(?:ts|js)\b/.test(readFileSync(p, 'utf8'))) offenders.push(p);
      }
    };
    walk(root);
    assert.deepEqual(offenders, []);
  });
});
