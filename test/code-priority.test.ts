/**
 * Issue 24 (sandboxes under per-key CPU priority) through the real server: sandboxed code is run
 * below the service (`CODE_NICE`, default 5), its session's scheduling group too where the kernel
 * groups sessions (autogroup), and each further run of a key going at once `CODE_NICE_STEP`
 * (default 3) lower, so one key's flood of loops sinks below another key's single run. Read from
 * /proc of the running processes: for Python, a `sleep` each run starts (it inherits its run's
 * values, so it shows what the code itself got); for JavaScript, the pooled worker processes; for
 * the `commands` step before the code (spec §4.8), a `sleep` the step runs.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { descendsFrom } from '../core/engines/processes.js';
import { priorityOf } from '../core/engines/tools/priority.js';

let s: TestServer;
const read = (p: string) => readFileSync(p, 'utf8');
/** Whether this kernel groups sessions for scheduling (then a group's nice is what a run's weight is). */
const autogroups = existsSync('/proc/self/autogroup');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const at = (nice: number) => ({ nice, group: autogroups ? nice : null });

/** Live processes under this test process (where the server runs) for which `test(pid)` holds. */
function processes(test: (pid: string) => boolean): number[] {
  return readdirSync('/proc')
    .filter((p) => {
      if (!/^\d+$/.test(p)) return false;
      try {
        return test(p) && descendsFrom(Number(p), process.pid);
      } catch {
        return false; // Gone while read.
      }
    })
    .map(Number);
}

/**
 * Starts a call by `key` that runs until hung up; returns the hang-up. On a connection of its own
 * (no keep-alive pool), destroyed to hang up: nothing is left open for the server's shutdown to wait for.
 */
function longCall(key: string, path: string, body: Record<string, unknown>): () => Promise<void> {
  const payload = JSON.stringify(body);
  const req = httpRequest(`${s.url}${path}`, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
  });
  const closed = new Promise<void>((r) => req.once('close', () => r()));
  req.on('error', () => undefined);
  req.on('response', (res) => res.resume());
  req.end(payload);
  return async () => {
    req.destroy();
    await closed;
  };
}

/** A Python run by `key` whose code starts `sleep <mark>`; resolves with that sleep's pid once it runs. */
async function pythonRun(key: string, mark: string, hangUps: (() => Promise<void>)[], extra: Record<string, unknown> = {}): Promise<number> {
  hangUps.push(longCall(key, '/api/v1/run-python-code', { code: `import subprocess\nsubprocess.run(["/usr/bin/sleep", "${mark}"])`, ...extra }));
  return findSleep(mark);
}

/**
 * A run by `key` on `route` whose `commands` step (spec §4.8, the shell step before the code)
 * runs `sleep <mark>`; resolves with that sleep's pid once it runs.
 */
async function commandsRun(key: string, route: 'run-python-code' | 'run-js-code', mark: string, hangUps: (() => Promise<void>)[]): Promise<number> {
  hangUps.push(longCall(key, `/api/v1/${route}`, { commands: `/usr/bin/sleep ${mark}`, code: route === 'run-js-code' ? 'console.log(1)' : 'print(1)' }));
  return findSleep(mark);
}

/** The pid of the `sleep <mark>` under this process, polled for until it runs. */
async function findSleep(mark: string): Promise<number> {
  for (let i = 0; i < 400; i++) {
    const [pid] = processes((p) => read(`/proc/${p}/comm`).trim() === 'sleep' && read(`/proc/${p}/cmdline`).split('\0')[1] === mark);
    if (pid) return pid;
    await sleep(25);
  }
  assert.fail(`the run sleeping ${mark} did not start`);
}

/** The JavaScript worker processes of the pool (node inside bubblewrap). */
const jsWorkers = () => processes((p) => read(`/proc/${p}/comm`).trim() === 'node' && read(`/proc/${p}/cmdline`).includes('/opt/js-worker/worker.cjs'));

/** How many runs an engine is serving, from /metrics (Python: a run holds its slot until it is torn down and uncounted). */
async function engineActive(engine: 'js' | 'python'): Promise<number> {
  const text = (await s.call('GET', '/metrics', { key: s.adminToken })).text;
  return Number(new RegExp(`^cia_engine_active_jobs\\{engine="${engine}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}
const jsActive = () => engineActive('js');

before(async () => {
  // Three workers: with three runs going every worker is busy, so each one's value is a run's.
  s = await startServer({ env: { SANDBOX_JS_WORKERS: '3', SANDBOX_MAX_CONCURRENT: '8' }, serviceConfig: pluginsConfig(['code']) });
  const { key } = await s.createKey({ credits: 10_000 });
  // Both engines started (workers up, sandboxes pre-started) before anything is read.
  await Promise.all(['run-js-code', 'run-python-code'].map((r) => s.call('POST', `/api/v1/${r}`, { key, body: { code: r === 'run-js-code' ? 'console.log(1)' : 'print(1)' } })));
});
after(() => s?.close());

test("Python: a key's only run at CODE_NICE (default 5), its second at once CODE_NICE_STEP (default 3) lower, another key's only run at CODE_NICE", async () => {
  const [{ key: a }, { key: b }] = await Promise.all([s.createKey({ credits: 10_000 }), s.createKey({ credits: 10_000 })]);
  assert.deepEqual(priorityOf(process.pid, read)?.nice, 0, 'the service itself runs at nice 0 here');
  const hangUps: (() => Promise<void>)[] = [];
  try {
    // A pre-started sandbox moved lower when A's second run takes it; A's third has a run
    // directory of its own (saveOutputFiles), spawned at its value; B's only run keeps the base.
    const a1 = await pythonRun(a, '30.1', hangUps);
    const a2 = await pythonRun(a, '30.2', hangUps);
    const a3 = await pythonRun(a, '30.3', hangUps, { saveOutputFiles: true });
    const b1 = await pythonRun(b, '30.4', hangUps);
    assert.deepEqual(priorityOf(a1, read), at(5), "key A's first run");
    assert.deepEqual(priorityOf(a2, read), at(8), "key A's second run at once: one step lower");
    assert.deepEqual(priorityOf(a3, read), at(11), "key A's third run at once (its own run directory): two steps lower");
    assert.deepEqual(priorityOf(b1, read), at(5), "key B's only run: above key A's further runs");
  } finally {
    for (const h of hangUps) await h();
  }
});

test("JavaScript: a pooled worker is moved per run: a key's second run at once one step lower, another key's only run and a later lone run at CODE_NICE", async () => {
  const [{ key: a }, { key: b }] = await Promise.all([s.createKey({ credits: 10_000 }), s.createKey({ credits: 10_000 })]);
  const niceOfWorkers = () => jsWorkers().map((p) => priorityOf(p, read)!);
  const sorted = (xs: { nice: number; group: number | null }[]) => xs.map((x) => `${x.nice}/${x.group}`).sort();
  assert.equal(jsWorkers().length, 3, 'three workers');
  assert.deepEqual(sorted(niceOfWorkers()), sorted([at(5), at(5), at(5)]), 'idle workers wait at CODE_NICE');
  const wait = 'await new Promise((r) => setTimeout(r, 60000))';
  const hangUps: (() => Promise<void>)[] = [];
  /** Starts a run by `key` and waits until the pool serves `n` runs. */
  const start = async (key: string, n: number) => {
    hangUps.push(longCall(key, '/api/v1/run-js-code', { code: wait }));
    for (let i = 0; (await jsActive()) < n; i++) {
      assert.ok(i < 400, `${n} runs served`);
      await sleep(25);
    }
  };
  try {
    await start(a, 1);
    await start(a, 2);
    assert.deepEqual(sorted(niceOfWorkers()), sorted([at(5), at(8), at(5)]), "key A's second run: its worker one step lower");
    await start(b, 3);
    // Every worker busy: had B's run been moved lower too, two would be at 8.
    assert.deepEqual(sorted(niceOfWorkers()), sorted([at(5), at(8), at(5)]), "key B's only run at CODE_NICE");
  } finally {
    for (const h of hangUps) await h();
  }
  // A's runs over (their workers are replaced after the hang-ups), its next lone run is at the base everywhere.
  for (let i = 0; (await jsActive()) > 0 || jsWorkers().length < 3; i++) {
    assert.ok(i < 800, 'the pool is idle again');
    await sleep(25);
  }
  const res = await s.call('POST', '/api/v1/run-js-code', { key: a, body: { code: 'console.log(1)' } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(sorted(niceOfWorkers()), sorted([at(5), at(5), at(5)]));
});

test("the commands step runs at its key's priority: a key's only run at CODE_NICE, its second at once CODE_NICE_STEP lower (Python and JavaScript)", async () => {
  const [{ key: a }, { key: b }] = await Promise.all([s.createKey({ credits: 10_000 }), s.createKey({ credits: 10_000 })]);
  const hangUps: (() => Promise<void>)[] = [];
  try {
    // Each step is still sleeping when the next starts (hung up on below), so each counts for its
    // key; the engines count apart (a Python run does not lower the same key's JavaScript run).
    const a1 = await commandsRun(a, 'run-python-code', '31.1', hangUps);
    const a2 = await commandsRun(a, 'run-python-code', '31.2', hangUps);
    const b1 = await commandsRun(b, 'run-js-code', '31.3', hangUps);
    const b2 = await commandsRun(b, 'run-js-code', '31.4', hangUps);
    assert.deepEqual(priorityOf(a1, read), at(5), "key A's only Python run: its commands at CODE_NICE");
    assert.deepEqual(priorityOf(a2, read), at(8), "key A's second Python run at once: its commands one step lower");
    assert.deepEqual(priorityOf(b1, read), at(5), "key B's only JavaScript run: its commands at CODE_NICE");
    assert.deepEqual(priorityOf(b2, read), at(8), "key B's second JavaScript run at once: its commands one step lower");
  } finally {
    for (const h of hangUps.splice(0)) await h();
  }
  // Hung up on during their commands, A's runs count no more once torn down (their slots free):
  // A's next run is its only one again.
  for (let i = 0; (await engineActive('python')) > 0; i++) {
    assert.ok(i < 800, 'the Python runs hung up on are torn down');
    await sleep(25);
  }
  try {
    assert.deepEqual(priorityOf(await commandsRun(a, 'run-python-code', '31.5', hangUps), read), at(5), "key A's next run after its hung-up ones: at CODE_NICE");
  } finally {
    for (const h of hangUps) await h();
  }
});

test('code cannot lift itself out of its scheduling group: a new session is refused, other process calls still work', async () => {
  const { key } = await s.createKey({ credits: 10_000 });
  const code = `import os, subprocess
try:
    os.setsid()
    print("setsid ok")
except OSError as e:
    print("setsid", e.errno)
try:
    subprocess.run(["/usr/bin/true"], start_new_session=True)
    print("new session ok")
except OSError as e:
    print("new session", e.errno)
os.setpgid(0, 0)
print(subprocess.run(["/usr/bin/echo", "child"], capture_output=True, text=True).stdout.strip())`;
  const res = await s.call('POST', '/api/v1/run-python-code', { key, body: { code } });
  assert.equal(res.status, 200, res.text);
  // EPERM (1) both ways; a process group of its own stays allowed (it is not a new scheduling group).
  assert.deepEqual(res.json.logs.stdout, process.arch === 'x64' ? ['setsid 1', 'new session 1', 'child'] : res.json.logs.stdout);
});
