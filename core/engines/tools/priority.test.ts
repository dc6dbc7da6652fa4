/**
 * Per-key priority helpers (issue 24) where a change is refused: a service run as a plain user
 * (no CAP_SYS_NICE, e.g. in a container) may lower a thread's priority but never raise it back.
 * Nothing may throw or fail a run for it, and the refusal is reported, so a pooled process left
 * lower is retired instead of serving the next key at a flood's priority (the JavaScript pool:
 * sandbox/js/priority.test.ts; compute workers: compute/nonroot.test.ts). The refusal is simulated
 * with an injected setter, and once for real in a child process dropped to user `nobody`. Also: a
 * key's tool run stops counting however it ends (cancelled, timed out, killed, failed), so the
 * key's next run is at the base again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { fairNice, priorityOf, renice, RunsByKey, setThreadsNice, type SetNice } from './priority.js';
import { moveRun } from '../sandbox/run-priority.js';
import { createToolEngine } from './index.js';
import type { ToolError } from '../../plugin/local-tools.js';

const read = (p: string) => readFileSync(p, 'utf8');

/** node:os's error for a refused setpriority (errno in `info.code`). */
const systemError = (code: string) => Object.assign(new Error(`A system error occurred: uv_os_setpriority returned ${code}`), { code: 'ERR_SYSTEM_ERROR', info: { code } });

/** Like the kernel for a process without CAP_SYS_NICE: lowering is allowed, raising is EACCES. */
const refusingRaises: SetNice = (tid, nice) => {
  if (nice < getPriority(tid)) throw systemError('EACCES');
  setPriority(tid, nice);
};

/** A `sleep` in a process group (and session) of its own, like a pooled worker. */
async function sleeper(): Promise<ChildProcess & { pid: number }> {
  const child = spawn('/usr/bin/sleep', ['30'], { detached: true, stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  return child as ChildProcess & { pid: number };
}

test('fairNice: a key\'s first run at the base, each further one a step lower, capped at 19; RunsByKey counts per key and never below zero', () => {
  assert.deepEqual([0, 1, 2, 9].map((n) => fairNice(5, 3, n)), [5, 8, 11, 19]);
  assert.equal(fairNice(-4, 3, 0), 0, 'never above the service');
  const runs = new RunsByKey();
  assert.deepEqual([runs.start('a'), runs.start('a'), runs.start('b')], [0, 1, 0]);
  runs.end('a');
  runs.end('a');
  runs.end('a');
  assert.equal(runs.start('a'), 0, 'an extra end does not leave the key below zero');
});

test('a refused raise neither throws nor passes unnoticed: setThreadsNice, renice and moveRun answer false and the process keeps its lower value', async () => {
  const child = await sleeper();
  try {
    assert.equal(setThreadsNice(child.pid, 8, refusingRaises), true, 'lowering is allowed');
    assert.equal(priorityOf(child.pid, read)!.nice, 8);
    assert.equal(setThreadsNice(child.pid, 5, refusingRaises), false);
    assert.equal(renice(child.pid, 5, () => true, refusingRaises), false);
    assert.equal(moveRun(child.pid, 5, true, () => true, refusingRaises), false);
    assert.equal(moveRun(child.pid, 5, false, () => true, refusingRaises), false);
    assert.equal(priorityOf(child.pid, read)!.nice, 8, 'still at the lower value');
    // Another user's process (EPERM) is a refusal too; a thread gone meanwhile (ESRCH) is not.
    assert.equal(setThreadsNice(child.pid, 9, () => { throw systemError('EPERM'); }), false);
    assert.equal(setThreadsNice(child.pid, 9, () => { throw systemError('ESRCH'); }), true);
    // The same call with the real setter (this suite runs as root): raised back.
    assert.equal(moveRun(child.pid, 5, true, () => true), true);
    assert.equal(priorityOf(child.pid, read)!.nice, process.getuid?.() === 0 ? 5 : 8);
  } finally {
    child.kill('SIGKILL');
  }
  // A process that is gone is nothing to refuse.
  await new Promise((r) => child.once('exit', r));
  assert.equal(setThreadsNice(child.pid, 5, refusingRaises), true);
  assert.equal(moveRun(child.pid, 5, true, () => true, refusingRaises), true);
});

test('for real, as a plain user: lowering a process works, raising it back is refused and reported, nothing throws', { skip: process.getuid?.() === 0 && !existsSync('/usr/bin/setpriv') ? 'needs setpriv to drop root' : false }, () => {
  const script = `
    import { spawn } from 'node:child_process';
    import { readFileSync } from 'node:fs';
    import { priorityOf, renice, setThreadsNice } from ${JSON.stringify(new URL('./priority.ts', import.meta.url).href)};
    import { moveRun } from ${JSON.stringify(new URL('../sandbox/run-priority.ts', import.meta.url).href)};
    const child = spawn('/usr/bin/sleep', ['30'], { detached: true, stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    const nice = () => priorityOf(child.pid, (p) => readFileSync(p, 'utf8')).nice;
    const out = { uid: process.getuid() };
    out.lower = [setThreadsNice(child.pid, 8), nice()];
    out.raise = [setThreadsNice(child.pid, 5), renice(child.pid, 5), moveRun(child.pid, 5, true, () => true), nice()];
    child.kill('SIGKILL');
    console.log(JSON.stringify(out));`;
  const node = [process.execPath, '--no-node-snapshot', '--import', 'tsx', '--input-type=module', '-e', script];
  // Dropped to nobody, without any capability (CAP_SYS_NICE included), as a service in a container runs.
  const argv = process.getuid?.() === 0 ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all', ...node] : node;
  const out = JSON.parse(execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8', cwd: new URL('../../..', import.meta.url).pathname, timeout: 60_000 }));
  assert.notEqual(out.uid, 0, 'not root');
  assert.deepEqual(out.lower, [true, 8]);
  assert.deepEqual(out.raise, [false, false, false, 8], 'refused and reported; the process keeps its lower value');
});

test("a key's tool run stops counting however it ends (cancelled, timed out, killed, failed): the key's next run starts at TOOLS_NICE", async () => {
  const log = { warn: () => undefined, info: () => undefined, error: () => undefined, debug: () => undefined } as never;
  const engine = createToolEngine({ env: {}, log });
  // The run's own nice, read inside its jail: field 19 of /proc/self/stat (`cut` has no space in its name).
  const niceOfRun = async (owner: string) => Number((await engine.run('sh', ['-c', "cut -d' ' -f19 /proc/self/stat"], { timeoutMs: 10_000, owner })).stdout.toString().trim());
  try {
    assert.equal(await niceOfRun('k'), 5, 'TOOLS_NICE (default 5)');
    const hangUp = new AbortController();
    const ended: Promise<string>[] = [
      engine.run('sleep', ['30'], { timeoutMs: 30_000, owner: 'k', signal: hangUp.signal }).then(() => 'ran', (e: ToolError) => e.kind),
      engine.run('sleep', ['30'], { timeoutMs: 300, owner: 'k' }).then(() => 'ran', (e: ToolError) => e.kind),
      engine.run('sh', ['-c', 'kill -KILL $$'], { timeoutMs: 10_000, owner: 'k' }).then(() => 'ran', (e: ToolError) => e.kind),
      engine.run('sh', ['-c', 'sleep 0.5; exit 3'], { timeoutMs: 10_000, owner: 'k' }).then(() => 'ran', (e: ToolError) => e.kind),
    ];
    // While those are going, a further run of the key is lower (they count)…
    assert.ok((await niceOfRun('k')) > 5, "the key's further run at once is lower");
    hangUp.abort(new Error('hang-up'));
    const kinds = await Promise.all(ended);
    // The third died of SIGKILL inside its jail, which reports it as an exit status (137).
    assert.deepEqual([kinds[0], kinds[1], kinds[2] !== 'ran', kinds[3]], ['cancelled', 'timeout', true, 'exit'], kinds.join());
    // …and once they are over, however they ended, its next run is its only one again.
    assert.equal(await niceOfRun('k'), 5);
  } finally {
    await engine.close();
  }
});
