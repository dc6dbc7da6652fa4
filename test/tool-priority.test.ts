/**
 * Issue 24 (`/healthz` p99 ≤ 100 ms while tools are flooded) through the real server: every tool
 * run and every LibreOffice worker is scheduled below the service (`TOOLS_NICE`, `OFFICE_NICE`),
 * both its own nice value and, where the kernel groups sessions (autogroup), its session's group:
 * a run spawned in a session of its own was a group weighted like the whole service, whatever its
 * nice value. Read from /proc of the running processes; each setting is also shown to be the one
 * that counts (another value, another server).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { wav } from './helpers/wav.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';
import { descendsFrom } from '../core/engines/processes.js';
import { priorityOf } from '../core/engines/tools/priority.js';
import { createOfficeEngine } from '../core/engines/office/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let fake: ModelFake;
let s: TestServer;
let other: TestServer;
let origin: Server;
let originUrl: string;
const read = (p: string) => readFileSync(p, 'utf8');
/** Whether this kernel groups sessions for scheduling (then a group's nice is what a tool's weight is). */
const autogroups = existsSync('/proc/self/autogroup');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


/** The processes named `comm` under this test process now. */
function processesNamed(comm: string): number[] {
  const found: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (read(`/proc/${p}/comm`).trim() === comm && descendsFrom(Number(p), process.pid)) found.push(Number(p));
    } catch {
      // Gone while read.
    }
  }
  return found;
}

/** The first process named `comm` under this test process (where the servers run), polled for at most `ms`. */
async function findProcess(comm: string, ms: number, exclude = new Set<number>(), giveUp?: AbortSignal): Promise<number | undefined> {
  for (const end = Date.now() + ms; Date.now() < end && !giveUp?.aborted; await sleep(50)) {
    for (const p of readdirSync('/proc')) {
      if (!/^\d+$/.test(p) || exclude.has(Number(p))) continue;
      try {
        if (read(`/proc/${p}/comm`).trim() === comm && descendsFrom(Number(p), process.pid)) return Number(p);
      } catch {
        // Gone while read.
      }
    }
  }
  return undefined;
}

/** Starts an extract-audio call on `srv` (by `key`, else a new key) whose ffmpeg runs for long; returns its ffmpeg's pid (none if the call ended first: `status`) and a hang-up. */
async function longFfmpeg(srv: TestServer, exclude: Set<number>, key?: string): Promise<{ pid: number | undefined; status?: number; ended: Promise<void>; hangUp: () => Promise<void> }> {
  key ??= (await srv.createKey({ credits: 5000 })).key;
  const stop = new AbortController();
  let status: number | undefined;
  const call = fetch(`${srv.url}/api/v1/extract-audio`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ inputMethod: 'url', audio: `${originUrl}/long.wav`, prompt: 'x' }),
    signal: stop.signal,
  }).then(
    async (r) => {
      status = r.status;
      await r.arrayBuffer();
    },
    () => undefined,
  );
  const ended = new AbortController();
  void call.then(() => ended.abort());
  const pid = await findProcess('ffmpeg', 60_000, exclude, ended.signal);
  return { pid, status, ended: call, hangUp: async () => (stop.abort(), void (await call)) };
}

before(async () => {
  fake = await startFake();
  const long = wav(1800);
  origin = createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(long));
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  const env = { ...fake.env, ALLOW_PRIVATE_NETWORK: 'true', EXTRACT_MAX_PROCESSES: '1' };
  // `s`: the defaults, one LibreOffice worker started at boot; `other`: tools at 12 (three at once, so
  // one key's second run can be seen beside another key's first), LibreOffice at the service's priority.
  [s, other] = await Promise.all([
    startServer({ env: { ...env, DOCUMENTS_PREWARM: 'true', OFFICE_POOL_SIZE: '1' }, serviceConfig: pluginsConfig(['extract', 'documents']) }),
    startServer({ env: { ...env, EXTRACT_MAX_PROCESSES: '3', TOOLS_NICE: '12', OFFICE_NICE: '0' }, serviceConfig: pluginsConfig(['extract']) }),
  ]);
});
after(async () => {
  await s?.close();
  await other?.close();
  await fake?.close();
  origin?.close();
});

test('a running tool is scheduled below the service (TOOLS_NICE, default 5), its session group too, and has no terminal', async () => {
  const mine = priorityOf(process.pid, read)!;
  assert.equal(mine.nice, 0, 'the service itself runs at nice 0 here');
  const run = await longFfmpeg(s, new Set());
  try {
    assert.ok(run.pid, 'ffmpeg started');
    assert.deepEqual(priorityOf(run.pid, read), { nice: 5, group: autogroups ? 5 : null });
    // Still a session of its own (the spawn's), without a controlling terminal (stat field 7, tty_nr).
    const stat = read(`/proc/${run.pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    assert.equal(fields[4], '0', 'no controlling terminal');
    assert.notEqual(fields[3], read('/proc/self/stat').slice(read('/proc/self/stat').lastIndexOf(')') + 2).split(' ')[3], 'not the service’s session');
  } finally {
    await run.hangUp();
  }

  const next = await longFfmpeg(other, new Set(run.pid ? [run.pid] : []));
  try {
    assert.ok(next.pid, 'ffmpeg started on the second server');
    assert.deepEqual(priorityOf(next.pid, read), { nice: 12, group: autogroups ? 12 : null });
  } finally {
    await next.hangUp();
  }
});

test('a key\'s further concurrent tool runs start lower (TOOLS_NICE_STEP, default 3); another key\'s only run keeps TOOLS_NICE; a lone run after them (killed or hung up on) is back at TOOLS_NICE', async () => {
  const { key: flooder } = await other.createKey({ credits: 5000 });
  // The previous test's ffmpeg runs were hung up on, but a niced one may still be being torn
  // down: it must not be taken for this test's first run (it was, in quiet full runs).
  const seen = new Set<number>(processesNamed('ffmpeg'));
  const runs: Awaited<ReturnType<typeof longFfmpeg>>[] = [];
  try {
    // Key A's first run, then its second while the first goes on, then key B's only run. Each
    // ffmpeg is stopped (SIGSTOP) once found, so it is still running when the next one starts
    // however fast this machine transcodes (a quiet fast machine finished the first run before
    // the third started); a stopped process keeps its priority and its place in its key's count.
    for (const key of [flooder, flooder, undefined]) {
      const run = await longFfmpeg(other, seen, key);
      runs.push(run);
      assert.ok(run.pid, 'ffmpeg started');
      process.kill(run.pid, 'SIGSTOP');
      seen.add(run.pid);
    }
    const [a1, a2, b] = runs.map((r) => priorityOf(r.pid!, read));
    assert.deepEqual(a1, { nice: 12, group: autogroups ? 12 : null }, "key A's first run: TOOLS_NICE");
    assert.deepEqual(a2, { nice: 15, group: autogroups ? 15 : null }, "key A's second run at once: one step lower");
    assert.deepEqual(b, { nice: 12, group: autogroups ? 12 : null }, "key B's only run: TOOLS_NICE, above key A's second");
  } finally {
    // Key A's first run ends killed (as by the OOM killer or an operator: an engine death), the
    // other two hung up on: neither may leave a run counted for its key.
    for (const [i, r] of runs.entries()) {
      try {
        if (r.pid) process.kill(r.pid, i === 0 ? 'SIGKILL' : 'SIGCONT');
      } catch {
        // Already gone.
      }
      if (i === 0) await r.ended;
      await r.hangUp();
    }
  }
  // Once A's runs are over, its next run is its only one again (its calls may count as running
  // for a moment after the hang-ups: a 429 is retried).
  let again = await longFfmpeg(other, seen, flooder);
  for (let i = 0; i < 100 && !again.pid && again.status === 429; i++) {
    await sleep(200);
    again = await longFfmpeg(other, seen, flooder);
  }
  try {
    assert.ok(again.pid, `ffmpeg started (status ${again.status})`);
    assert.deepEqual(priorityOf(again.pid, read), { nice: 12, group: autogroups ? 12 : null });
  } finally {
    await again.hangUp();
  }
});

test('a LibreOffice worker is scheduled below the service (OFFICE_NICE, default 5), its session group too', async () => {
  const pid = await findProcess('soffice.bin', 120_000);
  assert.ok(pid, 'the prewarmed LibreOffice is running');
  assert.deepEqual(priorityOf(pid, read), { nice: 5, group: autogroups ? 5 : null });
  // Its driver too: the whole tree starts niced.
  const driver = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number).find((p) => {
    try {
      return read(`/proc/${p}/cmdline`).split('\0').some((a) => a.endsWith('driver.py')) && descendsFrom(pid, p) && descendsFrom(p, process.pid);
    } catch {
      return false;
    }
  });
  assert.ok(driver, 'its driver found');
  assert.equal(priorityOf(driver, read)!.nice, 5);
});

test('a pooled LibreOffice worker is reniced per job: a key\'s only conversion at OFFICE_NICE, its second at once TOOLS_NICE_STEP lower, and back up for the next key', async () => {
  // The pool itself (three workers), owners given as the documents lane gives ctx.caller: three
  // long conversions at once (owners A, A, B), then three of three other keys.
  const dataDir = await mkdtemp(join(tmpdir(), 'office-nice-'));
  const office = createOfficeEngine({ dataDir, publicBaseUrl: () => '', env: { OFFICE_POOL_SIZE: '3', OFFICE_NICE: '4', TOOLS_NICE_STEP: '3' }, log: { debug() {}, info() {}, warn() {}, error() {} } });
  // Plain text of some thousand pages: long enough to be looked at while it converts.
  const long = { data: new TextEncoder().encode('A line of text that LibreOffice lays out on a page.\n'.repeat(60_000)), extension: 'txt' };
  /** The nice values of every soffice.bin of this pool (process and group), sorted, once all three workers are busy. */
  const whileBusy = async (owners: string[]) => {
    // Cancelled once read: a hang-up kills the conversion, so the test does not wait out six of them.
    const stop = new AbortController();
    const jobs = owners.map((owner) => office.convert(long, { owner, signal: stop.signal }));
    try {
      for (let i = 0; office.stats().workers.some((w) => w.state !== 'busy'); i++) {
        assert.ok(i < 3000, 'three conversions at once');
        await sleep(20);
      }
      const pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
        try {
          return read(`/proc/${p}/comm`).trim() === 'soffice.bin' && read(`/proc/${p}/cmdline`).includes(dataDir);
        } catch {
          return false;
        }
      });
      assert.equal(pids.length, 3, 'one soffice.bin per worker');
      const seen = pids.map((p) => priorityOf(Number(p), read)!);
      assert.equal(office.stats().workers.filter((w) => w.state === 'busy').length, 3, 'still all converting when read');
      return { nice: seen.map((p) => p.nice).sort((a, b) => a - b), group: seen.map((p) => p.group).sort((a, b) => (a ?? 0) - (b ?? 0)) };
    } finally {
      stop.abort(new Error('read'));
      await Promise.allSettled(jobs);
    }
  };
  try {
    await office.warm();
    const flood = await whileBusy(['A', 'A', 'B']);
    assert.deepEqual(flood.nice, [4, 4, 7], "A's second conversion one step below A's first and B's only one");
    if (autogroups) assert.deepEqual(flood.group, [4, 4, 7]);
    // A and B again: their conversions above were hung up on (the reads cancel them), which must
    // have ended their count, or A's would be two steps lower.
    const lone = await whileBusy(['A', 'B', 'C']);
    assert.deepEqual(lone.nice, [4, 4, 4], 'the lowered worker is raised back for a key\'s only conversion; hung-up ones count no more');
    if (autogroups) assert.deepEqual(lone.group, [4, 4, 4]);
  } finally {
    await office.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
