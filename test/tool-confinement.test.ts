/**
 * Issue 24 (findings 3, 5, 6, 11) through the real server: images are admitted by their header
 * before any tool decodes them, playlists are refused before ffmpeg sees them, every tool runs
 * confined (no secret in its environment, not root, no network), a tool killed by its memory cap
 * is the service's fault, a hang-up kills the running tool and frees its slot, the tool gate
 * serves keys in turn, and URL media are streamed to disk within the in-flight byte budget.
 * Credits are checked on every path. Tool starts are witnessed by a bubblewrap wrapper
 * (TOOLS_BWRAP_BIN) that logs each run before it execs the real one.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { bwrapWitness, type BwrapWitness } from './helpers/bwrap-witness.js';
import { wav } from './helpers/wav.js';
import { textPng } from './fixtures/extract/make.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';
import { descendsFrom } from '../core/engines/processes.js';

const config = pluginsConfig(['extract']);
const SECRET = `secret-${randomBytes(6).toString('hex')}`;
let fake: ModelFake;
let s: TestServer;
let tight: TestServer;
let origin: Server;
let originUrl: string;
let bwrap: BwrapWitness;
/** Routes of the loopback origin: path → handler. */
const routes = new Map<string, (res: ServerResponse) => unknown>();
const b64 = (b: Buffer) => b.toString('base64');
const savedEnv = { ...process.env };

/** A PNG of `width`×`height` grey pixels, all zero; `rows` of them present (a header is all admission reads). */
function greyPng(width: number, height: number, rows = 16): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc((width + 1) * Math.min(rows, height)))), chunk('IEND', Buffer.alloc(0))]);
}


/** Tool runs so far (the engine's one-off bubblewrap probe, which runs `true`, left out). */
const toolRuns = () => bwrap.runs();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls `check` every 50 ms until it returns a value, for at most `ms`. */
async function until<T>(check: () => T | undefined | false, ms: number): Promise<T | undefined> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) {
    const v = check();
    if (v) return v;
  }
  return undefined;
}
const balance = async (srv: TestServer, key: string) => (await srv.call('GET', '/api/v2/balance', { key })).json.data.credits as number;

before(async () => {
  fake = await startFake();
  // The service's secrets as a deployment holds them: in the process environment tools used to inherit.
  process.env.ADMIN_TOKEN = SECRET;
  process.env.MODEL_API_KEY = fake.apiKey;
  bwrap = bwrapWitness('tool-wrap-');
  origin = createServer((req, res) => {
    const route = routes.get(req.url ?? '');
    if (route) return void route(res);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  const env = { ...fake.env, ALLOW_PRIVATE_NETWORK: 'true', TOOLS_BWRAP_BIN: bwrap.bin, EXTRACT_MAX_PROCESSES: '1' };
  // `tight`: a 40 MB tool memory cap and a 1 MB in-flight byte budget.
  [s, tight] = await Promise.all([startServer({ env, serviceConfig: config }), startServer({ env: { ...env, TOOLS_MEMORY_MB: '40', BODY_BYTES_IN_FLIGHT_MAX: '1000000' }, serviceConfig: config })]);
});
after(async () => {
  await s?.close();
  await tight?.close();
  await fake?.close();
  origin?.close();
  bwrap.remove();
  for (const k of ['ADMIN_TOKEN', 'MODEL_API_KEY']) if (savedEnv[k] === undefined) delete process.env[k];
  else process.env[k] = savedEnv[k];
});

test('a 16000×16000 PNG is a free 400 before any tool starts; so is a huge GIF behind a good image, and a playlist given as an image', async () => {
  const { key } = await s.createKey({ credits: 1000 });
  const runs = toolRuns();
  const bomb = await s.call('POST', '/api/v1/extract-image', { key, body: { inputMethod: 'base64', images: [b64(greyPng(16000, 16000))], prompt: 'x' } });
  assert.equal(bomb.status, 400, bomb.text);
  assert.equal(bomb.json.error, "'images[0]' is too large: 16000×16000 pixels (256 megapixels); images may have at most 50 megapixels.");
  const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([0x30, 0x75, 0x30, 0x75, 0, 0, 0]), Buffer.from([0x3b])]);
  const mixed = await s.call('POST', '/api/v1/extract-image', { key, body: { inputMethod: 'base64', images: [b64(textPng('fine')), b64(gif)], prompt: 'x' } });
  assert.equal(mixed.status, 400, mixed.text);
  assert.match(mixed.json.error, /^'images\[1\]' is too large: 30000×30000 pixels/);
  const playlist = await s.call('POST', '/api/v1/extract-image', { key, body: { inputMethod: 'base64', images: [b64(Buffer.from('#EXTM3U\n#EXTINF:1,\n/etc/hostname.png\n'))], prompt: 'x' } });
  assert.equal(playlist.status, 400, playlist.text);
  assert.equal(playlist.json.error, "'images[0]' is not a supported image: send PNG, JPEG, GIF, WebP, BMP or TIFF.");
  assert.equal(toolRuns(), runs, 'no tool started for any of them');
  assert.equal(await balance(s, key), 1000);
});

test('an HLS playlist as audio and a DASH manifest as video are free 400s; no tool opens them', async () => {
  const { key } = await s.createKey({ credits: 1000 });
  routes.set('/list.m3u8', (res) => res.writeHead(200, { 'content-type': 'audio/mpegurl' }).end('#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile:///etc/hostname.mp3\n#EXT-X-ENDLIST\n'));
  const runs = toolRuns();
  const audio = await s.call('POST', '/api/v1/extract-audio', { key, body: { inputMethod: 'url', audio: `${originUrl}/list.m3u8`, prompt: 'x' } });
  assert.equal(audio.status, 400, audio.text);
  assert.equal(audio.json.error, 'The audio is an HLS/M3U playlist, not an audio file: send the media file itself.');
  const mpd = '<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><Period><AdaptationSet><Representation><BaseURL>file:///etc/hostname</BaseURL></Representation></AdaptationSet></Period></MPD>';
  const video = await s.call('POST', '/api/v1/extract-video', { key, body: { inputMethod: 'base64', video: b64(Buffer.from(mpd)), prompt: 'x' } });
  assert.equal(video.status, 400, video.text);
  assert.match(video.json.error, /DASH manifest/);
  assert.equal(toolRuns(), runs);
  assert.equal(await balance(s, key), 1000);
});

test('a running tool has no secret, is not root and has no network; a hang-up kills it, frees its slot and costs nothing', async () => {
  const { key } = await s.createKey({ credits: 5000 });
  routes.set('/long.wav', (res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav(1800)));
  const hangUp = new AbortController();
  const call = fetch(`${s.url}/api/v1/extract-audio`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ inputMethod: 'url', audio: `${originUrl}/long.wav`, prompt: 'x' }),
    signal: hangUp.signal,
  }).catch(() => undefined);
  const isOurFfmpeg = (pid: number) => {
    try {
      // The ffmpeg itself, not one of the launchers before it (their command lines carry its arguments).
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv[0]!.endsWith('/ffmpeg') && argv.some((a) => a.includes('loudnorm')) && descendsFrom(pid, process.pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  };
  const pid = await until(() => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number).find(isOurFfmpeg), 60_000);
  assert.ok(pid, 'ffmpeg started');
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
  assert.ok(!environ.includes(SECRET) && !environ.includes(fake.apiKey), 'no ADMIN_TOKEN or provider key in the tool environment');
  assert.deepEqual(environ.split('\0').filter(Boolean).map((v) => v.split('=')[0]).sort(), ['HOME', 'LANG', 'MALLOC_ARENA_MAX', 'OMP_THREAD_LIMIT', 'PATH', 'PWD', 'TMPDIR']);
  const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  if (process.getuid?.() === 0) assert.notEqual(uid, 0);
  // Its own network namespace: the host's loopback (where the service and its database listen) is not there.
  assert.notEqual(readlinkSync(`/proc/${pid}/ns/net`), readlinkSync('/proc/self/ns/net'));
  assert.doesNotMatch(readFileSync(`/proc/${pid}/net/dev`, 'utf8'), /eth|ens|veth|docker/);
  hangUp.abort();
  await call;
  assert.ok(await until(() => !isOurFfmpeg(pid), 20_000), 'the tool process is gone after the hang-up');
  // The hold is released once the executor has seen the handler end.
  for (let i = 0; i < 100 && (await balance(s, key)) !== 5000; i++) await sleep(100);
  assert.equal(await balance(s, key), 5000);
  // The one tool slot (EXTRACT_MAX_PROCESSES=1) is free again.
  const next = await s.call('POST', '/api/v1/extract-image', { key, body: { inputMethod: 'base64', images: [b64(textPng('after'))], prompt: 'x' } });
  assert.equal(next.status, 200, next.text);
  assert.equal(await balance(s, key), 5000 - 110);
});

test('a tool killed by its memory cap is a free 500, never a 400 about the image', async () => {
  const { key } = await tight.createKey({ credits: 1000 });
  const r = await tight.call('POST', '/api/v1/extract-image', { key, body: { inputMethod: 'base64', images: [b64(greyPng(6000, 6000, 6000))], prompt: 'x' } });
  assert.equal(r.status, 500, r.text);
  assert.equal(r.json.error, 'Failed to extract image data: the processing was stopped by the service (memory or time limit).');
  assert.equal(await balance(tight, key), 1000);
});

test('key B’s first job is not held behind key A’s backlog on the tool gate', async () => {
  const a = await s.createKey({ credits: 1000 });
  const b = await s.createKey({ credits: 1000 });
  const page = b64(textPng('Backlog page with a few words to read'));
  const runs = toolRuns();
  const finished: string[] = [];
  const first = s.call('POST', '/api/v1/extract-image', { key: a.key, body: { inputMethod: 'base64', images: [page, page, page, page], prompt: 'x' } }).then((r) => (finished.push('A'), r));
  assert.ok(await until(() => toolRuns() > runs, 30_000), 'A’s first tool started');
  const second = await s.call('POST', '/api/v1/extract-image', { key: b.key, body: { inputMethod: 'base64', images: [page], prompt: 'x' } });
  finished.push('B');
  assert.equal(second.status, 200, second.text);
  assert.equal((await first).status, 200);
  // B's two jobs (downscale, OCR) went between A's eight instead of after them.
  assert.deepEqual(finished, ['B', 'A']);
  assert.deepEqual([await balance(s, a.key), await balance(s, b.key)], [1000 - 140, 1000 - 110]);
});

test('media by URL are written to the scratch file as they arrive and count in the in-flight byte budget', async () => {
  const { key } = await s.createKey({ credits: 1000 });
  const audio = wav(20, true);
  const half = audio.length >> 1;
  const marker = audio.subarray(44, 4096);
  let sawPartial = false;
  routes.set('/slow.wav', async (res) => {
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(audio.length) });
    res.write(audio.subarray(0, half));
    // While the second half is held back, the first is already in a scratch file of the service.
    sawPartial = !!(await until(() => {
      for (const d of readdirSync(tmpdir()).filter((n) => n.startsWith('extract-audio-'))) {
        try {
          const f = readFileSync(join(tmpdir(), d, 'input'));
          if (f.length >= half && f.subarray(44, 4096).equals(marker)) return true;
        } catch {
          // Not this one (gone, or no input yet).
        }
      }
      return false;
    }, 15_000));
    res.end(audio.subarray(half));
  });
  const r = await s.call('POST', '/api/v1/extract-audio', { key, body: { inputMethod: 'url', audio: `${originUrl}/slow.wav`, prompt: 'x' } });
  assert.equal(r.status, 200, r.text);
  assert.ok(sawPartial, 'the download was on disk before it ended');
  assert.equal(await balance(s, key), 1000 - 120);

  // On an instance with a 1 MB budget, a 1.6 MB download does not fit: a free 429, declared or not.
  const { key: k2 } = await tight.createKey({ credits: 1000 });
  const big = wav(200);
  routes.set('/big.wav', (res) => res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(big.length) }).end(big));
  routes.set('/big-chunked.wav', (res) => {
    res.writeHead(200, { 'content-type': 'audio/wav' });
    res.write(big.subarray(0, 500_000));
    res.end(big.subarray(500_000));
  });
  for (const path of ['/big.wav', '/big-chunked.wav']) {
    const busy = await tight.call('POST', '/api/v1/extract-audio', { key: k2, body: { inputMethod: 'url', audio: `${originUrl}${path}`, prompt: 'x' } });
    assert.equal(busy.status, 429, `${path}: ${busy.text}`);
    assert.equal(busy.json.error, 'The service is receiving too much data at once. Please retry shortly.');
  }
  assert.equal(await balance(tight, k2), 1000);
});
