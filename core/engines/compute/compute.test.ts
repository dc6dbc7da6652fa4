/** The compute pool: work runs off the main thread; overruns, aborts and heap exhaustion cost one worker. */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createComputeEngine } from './index.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const engine = createComputeEngine({ dataDir: '/tmp', publicBaseUrl: () => '', env: { COMPUTE_WORKERS: '1', COMPUTE_TIMEOUT_MS: '1500', COMPUTE_MEMORY_MB: '128' }, log: silent });
const work = new URL('./compute-fixture.js', import.meta.url);
after(() => engine.close());

describe('compute engine', () => {
  it('calls an export in a worker thread and returns its result', async () => {
    assert.deepEqual(await engine.run(work, 'sum', [1, 2, 3]), { total: 6, mainThread: false });
  });

  it('keeps the main thread free while the work runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const busy = await engine.run<number>(work, 'spin', 400);
    clearInterval(timer);
    assert.ok(busy >= 400);
    assert.ok(ticks >= 5, `the main thread ran ${ticks} timer ticks during 400 ms of work`);
  });

  it('an error thrown by the work reaches the caller with its name and message', async () => {
    await assert.rejects(engine.run(work, 'fail', 'bad page'), { name: 'RangeError', message: 'bad page' });
    await assert.rejects(engine.run(work, 'missing', null), /has no exported function missing/);
  });

  it('a call past its time, an aborted call and an exhausted heap each cost one worker; the next call is served', async () => {
    await assert.rejects(engine.run(work, 'spin', 60_000), { code: 'UPSTREAM_ERROR', message: 'The content could not be processed within 2 s.' });
    assert.deepEqual(await engine.run(work, 'sum', [2]), { total: 2, mainThread: false });
    const ctl = new AbortController();
    const aborted = engine.run(work, 'spin', 60_000, { signal: ctl.signal });
    setTimeout(() => ctl.abort(new Error('caller left')), 100);
    await assert.rejects(aborted, /caller left/);
    // Its own, longer time limit: filling the heap may take a while on a loaded machine.
    await assert.rejects(engine.run(work, 'hog', null, { timeoutMs: 60_000 }), { code: 'UPSTREAM_ERROR', message: 'The content is too large to process.' });
    assert.deepEqual(await engine.run(work, 'sum', [5, 5]), { total: 10, mainThread: false });
  });
});
