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
import { startFake, type ModelFake } from '../plugins/extract/fake.js';
import { descendsFrom } from '../core/engines/processes.js';
import { priorityOf } from '../core/engines/tools/priority.js';

let fake: ModelFake;
let s: TestServer;
let other: TestServer;
let origin: Server;
let originUrl: string;
const read = (p: string) => readFileSync(p, 'utf8');
/** Whether this kernel groups sessions for scheduling (then a group's nice is what a tool's weight is). */
const autogroups = existsSync('/proc/self/autogroup');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A mono 8 kHz 8-bit WAV of silence: long enough that ffmpeg is still reading it when looked at. */
function wav(seconds: number): Buffer {
  const data = Buffer.alloc(seconds * 8000, 128);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(8000, 28);
  h.writeUInt16LE(1, 32);
  h.writeUInt16LE(8, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

/** The first process named `comm` under this test process (where the servers run), polled for at most `ms`. */
async function findProcess(comm: string, ms: number, exclude = new Set<number>()): Promise<number | undefined> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) {
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

/** Starts an extract-audio call on `srv` whose ffmpeg runs for long; returns its ffmpeg's pid and a hang-up. */
async function longFfmpeg(srv: TestServer, exclude: Set<number>): Promise<{ pid: number | undefined; hangUp: () => Promise<void> }> {
  const { key } = await srv.createKey({ credits: 5000 });
  const stop = new AbortController();
  const call = fetch(`${srv.url}/api/v1/extract-audio`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ inputMethod: 'url', audio: `${originUrl}/long.wav`, prompt: 'x' }),
    signal: stop.signal,
  }).catch(() => undefined);
  const pid = await findProcess('ffmpeg', 60_000, exclude);
  return { pid, hangUp: async () => (stop.abort(), void (await call)) };
}

before(async () => {
  fake = await startFake();
  const long = wav(1800);
  origin = createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(long));
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  const env = { ...fake.env, ALLOW_PRIVATE_NETWORK: 'true', EXTRACT_MAX_PROCESSES: '1' };
  // `s`: the defaults, one LibreOffice worker started at boot; `other`: tools at 15, LibreOffice at the service's priority.
  [s, other] = await Promise.all([
    startServer({ env: { ...env, DOCUMENTS_PREWARM: 'true', OFFICE_POOL_SIZE: '1' }, serviceConfig: pluginsConfig(['extract', 'documents']) }),
    startServer({ env: { ...env, TOOLS_NICE: '15', OFFICE_NICE: '0' }, serviceConfig: pluginsConfig(['extract']) }),
  ]);
});
after(async () => {
  await s?.close();
  await other?.close();
  await fake?.close();
  origin?.close();
});

test('a running tool is scheduled below the service (TOOLS_NICE, default 10), its session group too, and has no terminal', async () => {
  const mine = priorityOf(process.pid, read)!;
  assert.equal(mine.nice, 0, 'the service itself runs at nice 0 here');
  const run = await longFfmpeg(s, new Set());
  try {
    assert.ok(run.pid, 'ffmpeg started');
    assert.deepEqual(priorityOf(run.pid, read), { nice: 10, group: autogroups ? 10 : null });
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
    assert.deepEqual(priorityOf(next.pid, read), { nice: 15, group: autogroups ? 15 : null });
  } finally {
    await next.hangUp();
  }
});

test('a LibreOffice worker is scheduled below the service (OFFICE_NICE, default 10), its session group too', async () => {
  const pid = await findProcess('soffice.bin', 120_000);
  assert.ok(pid, 'the prewarmed LibreOffice is running');
  assert.deepEqual(priorityOf(pid, read), { nice: 10, group: autogroups ? 10 : null });
  // Its driver too: the whole tree starts niced.
  const driver = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number).find((p) => {
    try {
      return read(`/proc/${p}/cmdline`).split('\0').some((a) => a.endsWith('driver.py')) && descendsFrom(pid, p) && descendsFrom(p, process.pid);
    } catch {
      return false;
    }
  });
  assert.ok(driver, 'its driver found');
  assert.equal(priorityOf(driver, read)!.nice, 10);
});
