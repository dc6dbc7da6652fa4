/**
 * LibreOffice workers' per-key priority where the service cannot raise a priority back (issue 24:
 * a service run as a plain user, without CAP_SYS_NICE). A pooled worker lowered for one key's
 * further conversion keeps its threads' lower nice; before, the next key's only conversion on it
 * ran at that flood's value. Now such a worker is recycled instead and the conversion runs at
 * OFFICE_NICE (on the fresh worker or any other at its priority). Seen in /proc while each
 * conversion runs. Three ways: the kernel's refusal simulated as root (an injected setter that
 * refuses raises), for real as user `nobody` through setpriv, and a session-group move that did
 * not happen (the kernel's rate limit) found before the worker is trusted for the next job.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { getPriority, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createOfficeEngine } from './index.js';
import { niceWhileConverting, sofficeOn } from './nice-seen.js';
import { processesUsing } from '../processes.js';
import type { SetNice } from '../tools/priority.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const root = process.getuid?.() === 0;
const autogroups = existsSync('/proc/self/autogroup');
/** Some pages of text: a conversion long enough to be seen running, short enough for a test. */
const doc = { data: new TextEncoder().encode('A line of text that LibreOffice lays out on a page.\n'.repeat(500)), extension: 'txt' };
/**
 * OFFICE_NICE 5, TOOLS_NICE_STEP 3 (the defaults, named): a key's second conversion at once runs
 * at 8. No conversion here is meant to time out: at a load of 20 a niced worker took more than the
 * default 60 s over the longer document below.
 */
const env = { OFFICE_POOL_SIZE: '2', OFFICE_NICE: '5', TOOLS_NICE_STEP: '3', OFFICE_TIMEOUT_MS: '600000' };

/** Like the kernel for a process without CAP_SYS_NICE: lowering a thread is allowed, raising it is EACCES. */
const refusingRaises: SetNice = (tid, nice) => {
  if (nice < getPriority(tid)) throw Object.assign(new Error('A system error occurred: uv_os_setpriority returned EACCES (permission denied)'), { code: 'ERR_SYSTEM_ERROR', info: { code: 'EACCES', errno: 13 } });
  setPriority(tid, nice);
};

const restarts = (stats: ReturnType<ReturnType<typeof createOfficeEngine>['stats']>) => ({
  recycles: stats.workers.reduce((n, w) => n + w.recycles, 0),
  kills: stats.workers.reduce((n, w) => n + w.kills, 0),
  crashes: stats.workers.reduce((n, w) => n + w.crashes, 0),
});

test("raises refused (simulated): a worker lowered for key a's flood is recycled, not given key c's only conversion; every later lone conversion at OFFICE_NICE", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'office-refused-'));
  const refused: number[] = [];
  const office = createOfficeEngine({ dataDir, publicBaseUrl: () => '', env, log: quiet }, (tid, nice) => {
    try {
      refusingRaises(tid, nice);
    } catch (err) {
      refused.push(nice);
      throw err;
    }
  });
  const round = (owners: string[]) => niceWhileConverting(office, join(dataDir, 'office'), owners, doc);
  try {
    await office.warm();
    const flood = await round(['a', 'a']);
    assert.deepEqual(flood.nice, [5, 8], "key a's second conversion at once one step lower (a lowering is allowed)");
    assert.deepEqual(refused, []);

    // b gets the worker at 5; c's only conversion would need the one left at 8 raised.
    const lone = await round(['b', 'c']);
    assert.ok(refused.length > 0, 'the raise back was tried and refused');
    assert.deepEqual(lone.nice, [5], 'no conversion of b or c ran below OFFICE_NICE');
    assert.deepEqual(restarts(office.stats()), { recycles: 1, kills: 0, crashes: 0 }, 'the lowered worker was recycled (once), not killed');

    const after = await round(['d', 'e']);
    assert.deepEqual(after.nice, [5], 'later lone conversions at OFFICE_NICE');
    assert.deepEqual(restarts(office.stats()), { recycles: 1, kills: 0, crashes: 0 }, 'no further recycle: nothing was left lower');
    for (const r of [flood, lone, after]) assert.equal(r.pdfs, 2, 'every conversion answered its PDF');
  } finally {
    await office.close();
  }
  assert.deepEqual(processesUsing(dataDir), []);
  await rm(dataDir, { recursive: true, force: true });
});

test('a conversion hung up on while it waits for the recycled worker is dropped at once, and its key\'s count with it', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'office-parked-'));
  const office = createOfficeEngine({ dataDir, publicBaseUrl: () => '', env, log: quiet }, refusingRaises);
  const work = join(dataDir, 'office');
  try {
    await office.warm();
    assert.deepEqual((await niceWhileConverting(office, work, ['a', 'a'], doc)).nice, [5, 8]);
    // b holds the worker at 5 a while; c's only conversion cannot have the one at 8 raised. (b need
    // only outlast c being placed, sent once b runs: some 40 pages.)
    const long = { data: new TextEncoder().encode('A line of text that LibreOffice lays out on a page.\n'.repeat(2000)), extension: 'txt' };
    const b = office.convert(long, { owner: 'b' });
    // Handled here too, so that an assertion failing before `await b` is reported as itself
    // rather than as b's rejection when the pool closes.
    b.catch(() => {});
    // c only once b holds the worker at 5: inputs are written off the thread, so a c sent at once
    // (its input the smaller) could be queued first and take that worker itself, leaving b to
    // wait for the recycled one and c running when hung up on (under load, 1 run in 6 or so).
    for (let i = 0; !office.stats().workers.some((w) => w.state === 'busy'); i++) {
      assert.ok(i < 3000, 'b runs');
      await new Promise((r) => setTimeout(r, 10));
    }
    const hangUp = new AbortController();
    const c = office.convert(doc, { owner: 'c', signal: hangUp.signal });
    c.catch(() => {});
    for (let i = 0; !(office.stats().queued === 1 && office.stats().workers.some((w) => w.state === 'stopped' || w.state === 'starting')); i++) {
      assert.ok(i < 3000, 'c waits for the recycled worker');
      await new Promise((r) => setTimeout(r, 10));
    }
    hangUp.abort(new Error('caller left'));
    await assert.rejects(c, /caller left/, 'answered at once with the hang-up');
    assert.equal(office.stats().queued, 0);
    await b;
    // Had c's hang-up left it counted as running, this would be its second conversion (at 8).
    const again = await niceWhileConverting(office, work, ['c'], doc);
    assert.deepEqual([again.nice, again.pdfs], [[5], 1]);
    assert.deepEqual(restarts(office.stats()), { recycles: 1, kills: 0, crashes: 0 });
  } finally {
    await office.close();
  }
  assert.deepEqual(processesUsing(dataDir), []);
  await rm(dataDir, { recursive: true, force: true });
});

test('a session-group move that did not happen is found before the next job, and made', { skip: autogroups ? false : 'no autogroup scheduling in this kernel' }, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'office-group-'));
  const office = createOfficeEngine({ dataDir, publicBaseUrl: () => '', env: { ...env, OFFICE_POOL_SIZE: '1' }, log: quiet });
  const work = join(dataDir, 'office');
  try {
    await office.warm();
    const first = await round1(['a']);
    assert.deepEqual([first.nice, first.group], [[5], [5]]);
    // What a write refused for the kernel's 100 ms rate limit (its retry dropped) leaves: the
    // worker recorded at 5, its session group elsewhere.
    const soffice = sofficeOn(join(work, 'profile-0'));
    assert.ok(soffice, 'its soffice.bin found');
    writeFileSync(`/proc/${soffice}/autogroup`, '9');
    const next = await round1(['b']);
    assert.deepEqual([next.nice, next.group], [[5], [5]], 'checked in /proc, not taken on trust: moved back to OFFICE_NICE');
  } finally {
    await office.close();
  }
  await rm(dataDir, { recursive: true, force: true });

  function round1(owners: string[]) {
    return niceWhileConverting(office, work, owners, doc);
  }
});

test('for real as user nobody (no CAP_SYS_NICE): the lowered worker is recycled, no later key runs at the flood\'s value, no conversion fails', { skip: root && !existsSync('/usr/bin/setpriv') ? 'needs setpriv to drop root' : false }, async () => {
  const here = (f: string) => JSON.stringify(new URL(f, import.meta.url).href);
  const script = `
    import { mkdtemp, rm } from 'node:fs/promises';
    import { tmpdir } from 'node:os';
    import { join } from 'node:path';
    import { createOfficeEngine } from ${here('./index.ts')};
    import { niceWhileConverting } from ${here('./nice-seen.ts')};
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const dataDir = await mkdtemp(join(tmpdir(), 'office-nobody-'));
    const office = createOfficeEngine({ dataDir, publicBaseUrl: () => '', env: ${JSON.stringify(env)}, log: quiet });
    const doc = { data: new TextEncoder().encode(${JSON.stringify('A line of text that LibreOffice lays out on a page.\n')}.repeat(500)), extension: 'txt' };
    const round = async (owners) => {
      const r = await niceWhileConverting(office, join(dataDir, 'office'), owners, doc);
      return { nice: r.nice, pdfs: r.pdfs };
    };
    const out = { uid: process.getuid() };
    try {
      await office.warm();
      out.flood = await round(['a', 'a']);
      out.lone = await round(['b', 'c']);
      out.after = await round(['d', 'e']);
      const w = office.stats().workers;
      out.stats = { recycles: w.reduce((n, x) => n + x.recycles, 0), kills: w.reduce((n, x) => n + x.kills, 0), crashes: w.reduce((n, x) => n + x.crashes, 0) };
    } finally {
      await office.close();
      await rm(dataDir, { recursive: true, force: true });
    }
    console.log(JSON.stringify(out));`;
  const node = [process.execPath, '--no-node-snapshot', '--import', 'tsx', '--input-type=module', '-e', script];
  const argv = root ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all', ...node] : node;
  const { stdout } = await promisify(execFile)(argv[0]!, argv.slice(1), { encoding: 'utf8', cwd: new URL('../../..', import.meta.url).pathname, timeout: 240_000 });
  const out = JSON.parse(stdout.trim().split('\n').pop()!);
  assert.notEqual(out.uid, 0, 'not root');
  assert.deepEqual(out.flood, { nice: [5, 8], pdfs: 2 }, "key a's second conversion at once one step lower (a lowering is allowed)");
  // The kernel refuses to raise the worker left at 8 for c's only conversion.
  assert.deepEqual(out.lone, { nice: [5], pdfs: 2 }, 'no conversion of b or c ran below OFFICE_NICE, none failed');
  assert.deepEqual(out.after, { nice: [5], pdfs: 2 });
  assert.deepEqual(out.stats, { recycles: 1, kills: 0, crashes: 0 }, 'the lowered worker recycled once, not killed');
});
