/**
 * The JavaScript pool's per-key priority where the service cannot raise a priority back (issue 24,
 * a service run as a plain user, without CAP_SYS_NICE): a pooled worker lowered for one key's
 * further run keeps its threads' lower nice when the next run wants it higher, so that run goes
 * lower than its share; the worker is then replaced, so no later run of any key inherits a
 * flood's priority. The kernel's refusal is simulated (this suite runs as root): the pool's mover
 * is the real one (run-priority.ts), given a setter that refuses every raise like the kernel does.
 * Also a move that silently did not happen (a session group write refused for the kernel's rate
 * limit, its retry dropped once its run ended): the next run finds the worker elsewhere and moves it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { JsSandboxEngine } from './engine.js';
import { workerPids } from './worker-pids.js';
import { loadSandboxSettings } from '../settings.js';
import { moveRun } from '../run-priority.js';
import { priorityOf, type SetNice } from '../../tools/priority.js';
import type { SandboxFetchRequest, SandboxResult } from '../types.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const read = (p: string) => readFileSync(p, 'utf8');
const autogroups = existsSync('/proc/self/autogroup');


/** Like the kernel for a process without CAP_SYS_NICE: lowering a thread is allowed, raising it is EACCES. */
const refusingRaises: SetNice = (tid, nice) => {
  if (nice < getPriority(tid)) throw Object.assign(new Error('A system error occurred: uv_os_setpriority returned EACCES (permission denied)'), { code: 'ERR_SYSTEM_ERROR', info: { code: 'EACCES', errno: 13 } });
  setPriority(tid, nice);
};

/** One run per owner at once; while every one of them waits in a fetch, the nice values of the workers (sorted). */
async function runTogether(engine: JsSandboxEngine, owners: string[]): Promise<{ nice: number[]; group: (number | null)[]; results: SandboxResult[] }> {
  let arrived = 0;
  let allIn!: () => void;
  const inFetch = new Promise<void>((r) => (allIn = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const fetch = async (req: SandboxFetchRequest) => {
    if (++arrived === owners.length) allIn();
    await gate;
    return { status: 200, statusText: 'OK', url: req.url, headers: {}, body: new Uint8Array(1) };
  };
  const runs = owners.map((owner) => engine.run({ owner, code: 'await fetch("https://example.test/"); console.log("ok")', fetch }));
  let seen: { nice: number; group: number | null }[];
  try {
    const late = new Promise<'late'>((r) => setTimeout(() => r('late'), 30_000).unref());
    assert.notEqual(await Promise.race([inFetch, late]), 'late', `${owners.length} runs at once`);
    seen = (await workerPids()).map((p) => priorityOf(p, read)!);
  } finally {
    release();
  }
  return { nice: seen.map((s) => s.nice).sort((a, b) => a - b), group: seen.map((s) => s.group).sort((a, b) => (a ?? 0) - (b ?? 0)), results: await Promise.all(runs) };
}

test('without CAP_SYS_NICE a worker lowered for a key\'s flood serves at most one later run below its share, then is replaced; later lone runs are at CODE_NICE', async () => {
  const refused: number[] = [];
  const engine = new JsSandboxEngine(loadSandboxSettings({ SANDBOX_JS_WORKERS: '2' }), silent, (pid, nice, own, wanted) => {
    const ok = moveRun(pid, nice, own, wanted, refusingRaises);
    if (!ok) refused.push(nice);
    return ok;
  });
  engine.start();
  const together = (owners: string[]) => runTogether(engine, owners);
  try {
    const flood = await together(['a', 'a']);
    assert.deepEqual(flood.nice, [5, 8], "key a's second run at once: its worker one step lower (a lowering is allowed)");
    assert.deepEqual(refused, []);

    // Two lone runs: one of them gets the worker left at 8, which cannot be raised back.
    const lone = await together(['b', 'c']);
    assert.deepEqual(lone.nice, [5, 8], 'the raise back was refused: that run went at the lower value');
    // Its session group (what autogroup weighs) is not a thread priority: it still moved.
    if (autogroups) assert.deepEqual(lone.group, [5, 5]);
    assert.deepEqual(refused, [5], 'the refusal was seen');
    for (const r of [...flood.results, ...lone.results]) assert.deepEqual([r.error, r.stdout], [undefined, ['ok']], 'no run failed because of it');
    assert.equal(engine.stats().recycles, 1, 'the worker left lower was retired after that run');

    const after = await together(['d', 'e']);
    assert.deepEqual(after.nice, [5, 5], 'later lone runs of other keys at CODE_NICE: no flood priority leaks to them');
    assert.equal(engine.stats().crashes, 0);
  } finally {
    await engine.close();
  }
});

test('a move that did not happen (a group write refused, its retry dropped) is found and made for the next run on that worker', async () => {
  let lose = false;
  const engine = new JsSandboxEngine(loadSandboxSettings({ SANDBOX_JS_WORKERS: '2' }), silent, (pid, nice, own, wanted) => (lose ? true : moveRun(pid, nice, own, wanted)));
  engine.start();
  try {
    assert.deepEqual((await runTogether(engine, ['a', 'a'])).nice, [5, 8]);
    // The move back of the worker left at 8 is reported done but does not happen.
    lose = true;
    assert.deepEqual((await runTogether(engine, ['b', 'c'])).nice, [5, 8]);
    lose = false;
    const after = await runTogether(engine, ['d', 'e']);
    assert.deepEqual(after.nice, [5, 5], 'checked, not taken on trust: moved to CODE_NICE for the next lone run');
    if (autogroups) assert.deepEqual(after.group, [5, 5]);
  } finally {
    await engine.close();
  }
});
