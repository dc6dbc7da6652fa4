/**
 * POST /api/v1/trim-video (issue 28) through the real server: a cut on keyframes is a stream
 * copy, one between keyframes is re-encoded, both exactly as long as asked; URL and base64
 * input; bad timestamps, a cut past the end and playlists are free 400s; credits are 10 per
 * started minute of output.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

let scratch: string;
let s: TestServer;
let key: string;
let origin: Server;
let originUrl: string;
let video: Buffer;

const probe = (file: string) =>
  JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file]).toString()) as {
    format: { duration: string; format_name: string };
    streams: { codec_type: string; codec_name: string; duration: string }[];
  };

async function balance(): Promise<number> {
  return (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
}

async function fetchCut(url: string): Promise<{ file: string; type: string | null }> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  const file = join(scratch, `cut-${Math.random().toString(36).slice(2)}`);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  return { file, type: res.headers.get('content-type') };
}

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'trim-test-'));
  const src = join(scratch, 'src.mp4');
  // 6 s, keyframe every second (25 fps, GOP 25), tiny so every cut takes milliseconds.
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=96x64:rate=25:duration=6', '-f', 'lavfi', '-i', 'sine=duration=6', '-c:v', 'libx264', '-g', '25', '-keyint_min', '25', '-sc_threshold', '0', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', src]);
  video = await readFile(src);
  origin = createServer((req, res) => {
    if (req.url === '/clip.mp4') return res.writeHead(200, { 'content-type': 'video/mp4' }).end(video);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as { port: number }).port}`;
  s = await startServer({ serviceConfig: pluginsConfig(['video_trim']), env: { ALLOW_PRIVATE_NETWORK: 'true' } });
  key = (await s.createKey({ credits: 1000 })).key;
});

after(async () => {
  await s?.close();
  await new Promise((r) => origin?.close(r));
  await rm(scratch, { recursive: true, force: true });
});

test('a cut on keyframes, by URL, is a stream copy of the asked length; 10 credits', async () => {
  const before = await balance();
  const res = await s.call('POST', '/api/v1/trim-video', { key, body: { videoUrl: `${originUrl}/clip.mp4`, startTimestamp: '00:00:01', endTimestamp: '00:00:03', requestSource: 'cli' } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.mode, 'copy');
  assert.match(res.json.url, /\/files\/[A-Za-z0-9_-]+\?expires=\d+&sig=[0-9a-f]{64}$/);
  assert.equal(res.headers['x-credits-charged'], '10');
  assert.equal(await balance(), before - 10);
  const cut = await fetchCut(res.json.url);
  assert.equal(cut.type, 'video/mp4');
  const p = probe(cut.file);
  // A copy starts exactly on the keyframe; its end is a packet boundary (a few frames at most).
  const v = p.streams.find((x) => x.codec_type === 'video')!;
  assert.ok(Math.abs(Number(v.duration) - 2) < 0.15, v.duration);
  assert.deepEqual(p.streams.map((x) => x.codec_type).sort(), ['audio', 'video']);
});

test('a cut between keyframes, as base64 with milliseconds, is re-encoded frame-accurately', async () => {
  const res = await s.call('POST', '/api/v1/trim-video', { key, body: { inputMethod: 'base64', videoUrl: video.toString('base64'), startTimestamp: '00:00:01.500', endTimestamp: '00:00:04.250' } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.mode, 'reencode');
  const p = probe((await fetchCut(res.json.url)).file);
  assert.equal(p.streams.find((x) => x.codec_type === 'video')!.codec_name, 'h264');
  assert.ok(Math.abs(Number(p.format.duration) - 2.75) < 0.1, p.format.duration);
});

test('bad input is a free 400 with its reason', async () => {
  const before = await balance();
  const cases: [unknown, RegExp][] = [
    [{ videoUrl: `${originUrl}/clip.mp4`, startTimestamp: '1:00', endTimestamp: '00:00:03' }, /'startTimestamp' parameter is required and must be a timestamp HH:MM:SS/],
    [{ videoUrl: `${originUrl}/clip.mp4`, startTimestamp: '00:00:03', endTimestamp: '00:00:02' }, /'endTimestamp' must be after 'startTimestamp'/],
    [{ videoUrl: `${originUrl}/clip.mp4`, startTimestamp: '00:00:01', endTimestamp: '00:00:09' }, /'endTimestamp' is past the end of the video \(00:00:06\.0/],
    [{ videoUrl: 'not a url', startTimestamp: '00:00:01', endTimestamp: '00:00:02' }, /'videoUrl' must be an http or https URL/],
    [{ inputMethod: 'base64', videoUrl: Buffer.from('#EXTM3U\n#EXTINF:4,\n/etc/passwd\n').toString('base64'), startTimestamp: '00:00:00', endTimestamp: '00:00:01' }, /Playlists and manifests/],
    [{ inputMethod: 'base64', videoUrl: Buffer.from('just some text, not a video').toString('base64'), startTimestamp: '00:00:00', endTimestamp: '00:00:01' }, /The video could not be read/],
  ];
  for (const [body, message] of cases) {
    const res = await s.call('POST', '/api/v1/trim-video', { key, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.json.error, message);
  }
  assert.equal(await balance(), before);
});

test('the route is in the v1 OpenAPI document with its price', async () => {
  const doc = (await s.call('GET', '/openapi/v1.json')).json;
  const op = doc.paths['/api/v1/trim-video']?.post;
  assert.ok(op, 'trim-video documented');
  assert.match(JSON.stringify(op), /per started minute/);
});
