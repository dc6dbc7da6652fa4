/**
 * Issue 24 finding 6 through the real server, for every file input given by URL that is not
 * extract-audio's or extract-video's (test/tool-confinement.test.ts): trim-video, doc-to-text,
 * read-pdf-metadata, convert-to-pdf, merge-pdfs and extract-image write the body to a scratch
 * file as it arrives (the service's memory does not grow by what it receives), every download
 * counts in the in-flight byte budget (a free 429 BUSY past it, declared length or not), and a
 * hang-up stops the downloads and removes their files, free. A loopback origin streams the large
 * files from one shared chunk, so neither side of the test holds them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './helpers/server.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';

const MB = 1024 * 1024;
/** What the origin holds back of each file until the test lets it go. */
const TAIL = MB;
const CHUNK = Buffer.alloc(MB, 0x41);

/** One file the origin is serving: bytes sent so far, whether the receiver left before the end. */
interface Serving {
  sent: number;
  cut: boolean;
  release(): void;
}

let origin: Server;
let originUrl: string;
let fake: ModelFake;
const serving = new Map<string, Serving>();

/**
 * `/file/<name>?size=N[&chunked][&hold]`: N bytes, declared unless `chunked`; with `hold`, the
 * last {@link TAIL} bytes only once the test releases them.
 */
async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const name = url.pathname.split('/').pop()!;
  const size = Number(url.searchParams.get('size'));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const state: Serving = { sent: 0, cut: false, release };
  serving.set(name, state);
  let finished = false;
  res.on('close', () => {
    state.cut = !finished;
    release();
  });
  res.writeHead(200, { 'content-type': 'application/octet-stream', ...(url.searchParams.has('chunked') ? {} : { 'content-length': String(size) }) });
  const hold = url.searchParams.has('hold') ? TAIL : 0;
  const send = async (upTo: number) => {
    while (state.sent < upTo && !res.destroyed) {
      const n = Math.min(CHUNK.length, upTo - state.sent);
      state.sent += n;
      if (!res.write(CHUNK.subarray(0, n))) await drained(res);
    }
  };
  await send(size - hold);
  if (hold) await released;
  await send(size);
  finished = true;
  if (!res.destroyed) res.end();
}

/** Resolves when `res` can take more, or has closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls `check` every 100 ms until it returns a value, for at most `ms`. */
async function until<T>(check: () => T, ms: number): Promise<T | undefined> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    const v = check();
    if (v) return v;
  }
  return undefined;
}
/** Resident memory of process `pid`, in bytes. */
function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}
/** The scratch folders the routes under test download into (their names' starts). */
const SCRATCH = ['video-trim-', 'doc-text', 'pdf-meta-', 'convert-to-pdf-', 'merge-pdfs-', 'extract-image-'];
/** Bytes of the files in the service's scratch folders under `dir`. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const folder of readdirSync(dir).filter((n) => SCRATCH.some((p) => n.startsWith(p)))) {
    try {
      for (const name of readdirSync(join(dir, folder))) total += statSync(join(dir, folder, name)).size;
    } catch {
      // Removed meanwhile.
    }
  }
  return total;
}
const balance = async (srv: TestServer, key: string) => (await srv.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
/** The balance once a call the caller left has released its hold (the server notices the hang-up on its own time). */
async function settledBalance(srv: TestServer, key: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const credits = await balance(srv, key);
    if (credits === 10_000) return credits;
    await sleep(100);
  }
  return balance(srv, key);
}

before(async () => {
  fake = await startFake();
  origin = createServer((req, res) => void serve(req, res));
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
after(async () => {
  for (const s of serving.values()) s.release();
  origin?.closeAllConnections();
  origin?.close();
  await fake?.close();
});

/** Every route whose file inputs come by URL here, with its body for `files` (URLs). */
const ROUTES: { path: string; body: (urls: string[]) => object; sizes: number[] }[] = [
  { path: '/api/v1/trim-video', sizes: [120 * MB], body: ([u]) => ({ inputMethod: 'url', videoUrl: u, startTimestamp: '00:00:01', endTimestamp: '00:00:02' }) },
  { path: '/api/v1/doc-to-text', sizes: [60 * MB], body: ([u]) => ({ inputMethod: 'url', file: u }) },
  { path: '/api/v1/read-pdf-metadata', sizes: [60 * MB], body: (files) => ({ inputMethod: 'url', files }) },
  { path: '/api/v1/convert-to-pdf', sizes: [60 * MB], body: ([u]) => ({ inputMethod: 'url', file: u }) },
  { path: '/api/v1/merge-pdfs', sizes: [30 * MB, 30 * MB], body: (files) => ({ inputMethod: 'url', files }) },
  { path: '/api/v1/extract-image', sizes: [15 * MB, 15 * MB], body: (images) => ({ inputMethod: 'url', images, prompt: 'x' }) },
];

test('large files by URL go to disk as they arrive, not into the service\'s memory; a hang-up stops them and removes the files, free', async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'url-streamed-'));
  // A child process of its own, so its resident memory is the service's alone; its temp dir is
  // where the test looks for the scratch files.
  const s = await startServer({
    processMode: true,
    env: {
      ...fake.env,
      TMPDIR: scratch,
      ALLOW_PRIVATE_NETWORK: 'true',
      BODY_BYTES_IN_FLIGHT_MAX: String(2000 * MB),
      DOC_TEXT_MAX_FILE_MB: '100',
      PDF_METADATA_MAX_FILE_MB: '100',
      DOCUMENTS_MAX_FILE_MB: '100',
    },
  });
  const calls: { key: string; abort: AbortController; done: Promise<unknown> }[] = [];
  try {
    const keys = await Promise.all(ROUTES.map(() => s.createKey({ credits: 10_000 })));
    // Warm: every route answered once (a refusal), so what they load is loaded before the baseline.
    for (const [i, r] of ROUTES.entries()) await s.call('POST', r.path, { key: keys[i]!.key, body: { ...r.body(r.sizes.map(() => 'not a url')) } });
    const before = rssOf(s.pid);
    let total = 0;
    for (const [i, r] of ROUTES.entries()) {
      const urls = r.sizes.map((size, j) => {
        total += size;
        return `${originUrl}/file/a${i}-${j}?size=${size}&hold`;
      });
      const abort = new AbortController();
      const done = fetch(`${s.url}${r.path}`, { method: 'POST', signal: abort.signal, headers: { authorization: `Bearer ${keys[i]!.key}`, 'content-type': 'application/json' }, body: JSON.stringify(r.body(urls)) }).then((res) => res.text(), () => undefined);
      calls.push({ key: keys[i]!.key, abort, done });
    }
    const names = ROUTES.flatMap((r, i) => r.sizes.map((size, j) => ({ name: `a${i}-${j}`, size })));
    const received = total - names.length * TAIL;
    // Everything but the tails is sent and the service has it: in its files, or (before issue 24) in its memory.
    const settled = await until(() => names.every(({ name, size }) => serving.get(name)?.sent === size - TAIL) && (bytesUnder(scratch) >= received || rssOf(s.pid) - before > received * 0.8), 240_000);
    assert.ok(settled, `the downloads did not arrive: ${bytesUnder(scratch)} of ${received} bytes on disk`);
    const grown = rssOf(s.pid) - before;
    t.diagnostic(`memory grew by ${Math.round(grown / MB)} MB while receiving ${Math.round(received / MB)} MB`);
    assert.ok(grown < total / 4, `the service's memory grew by ${Math.round(grown / MB)} MB while receiving ${Math.round(received / MB)} MB`);
    assert.ok(bytesUnder(scratch) >= received, 'what was received is in scratch files');

    // The callers hang up: every download stops, its file goes, nothing is charged.
    for (const c of calls) c.abort.abort();
    await Promise.all(calls.map((c) => c.done));
    const stopped = await until(() => names.every(({ name }) => serving.get(name)?.cut) && bytesUnder(scratch) === 0, 60_000);
    assert.ok(stopped, `after the hang-ups: ${names.filter(({ name }) => !serving.get(name)?.cut).map((n) => n.name).join(', ') || 'no download'} still running, ${bytesUnder(scratch)} bytes left on disk`);
    for (const c of calls) assert.equal(await settledBalance(s, c.key), 10_000);
  } finally {
    for (const c of calls) c.abort.abort();
    await s.close();
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('every URL download counts in the in-flight byte budget: a second one that does not fit is a free 429 BUSY, declared length or not', async () => {
  const s = await startServer({ env: { ...fake.env, ALLOW_PRIVATE_NETWORK: 'true', BODY_BYTES_IN_FLIGHT_MAX: String(30 * MB) } });
  const abort = new AbortController();
  try {
    const { key: holder } = await s.createKey({ credits: 10_000 });
    // 25 MB declared: taken from the 30 MB budget as soon as the headers arrive, held until it ends.
    const first = fetch(`${s.url}/api/v1/trim-video`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer ${holder}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputMethod: 'url', videoUrl: `${originUrl}/file/b-hold?size=${25 * MB}&hold`, startTimestamp: '00:00:01', endTimestamp: '00:00:02' }),
    }).then((res) => res.text(), () => undefined);
    assert.ok(await until(() => serving.get('b-hold')?.sent === 24 * MB, 60_000), 'the first download is under way');
    for (const [i, r] of ROUTES.entries()) {
      for (const chunked of [false, true]) {
        const { key } = await s.createKey({ credits: 10_000 });
        const urls = r.sizes.map((_, j) => `${originUrl}/file/b${i}-${j}-${chunked ? 'c' : 'd'}?size=${10 * MB}${chunked ? '&chunked' : ''}`);
        const res = await s.call('POST', r.path, { key, body: r.body(urls) });
        assert.equal(res.status, 429, `${r.path}${chunked ? ' (chunked)' : ''}: ${res.text}`);
        assert.equal(res.json.error, 'The service is receiving too much data at once. Please retry shortly.');
        assert.equal(await balance(s, key), 10_000, `${r.path}${chunked ? ' (chunked)' : ''} is free`);
      }
    }
    abort.abort();
    await first;
    assert.ok(await until(() => serving.get('b-hold')?.cut, 30_000), 'the hang-up stopped the first download');
    assert.equal(await settledBalance(s, holder), 10_000);
  } finally {
    abort.abort();
    await s.close();
  }
});
