/**
 * The extract plugin through the real executor against the fake OpenAI-compatible server:
 * images (OCR + downscaled image parts), audio (measured, normalised, chunked, transcribed),
 * video (keyframes + soundtrack), jsonMode and its retry, limits, cost rules; model faults through
 * the provider fault suite.
 * Inputs are made here with ffmpeg and poppler; documents and web pages are covered through the
 * real server in test/extract.test.ts (they run other lanes through ctx.call).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { examplePdfBase64 } from '../../core/catalogue.js';
import { pluginHarness, providerFaultSuite, withFake } from '../../core/testing/index.js';
import plugin from './index.js';
import { startFake } from './fake.js';
import { split, parseJson } from './answer.js';
import { spread } from './media.js';


const t = withFake(plugin, startFake, { env: { MODEL_AUDIO_CHUNK_SECONDS: '30', EXTRACT_VIDEO_MAX_FRAMES: '4', MODEL_VISION_NAME: 'vision-1' } });

const status = (p: Promise<unknown>) => p.then(() => 200, (e: { status?: number }) => e.status ?? 0);
const b64 = (b: Buffer) => b.toString('base64');

/** ffmpeg output of `args` as bytes. */
function ffmpeg(args: string[], ext: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'extract-plugin-test-'));
  try {
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args, join(dir, `out.${ext}`)]);
    return readFileSync(join(dir, `out.${ext}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const tone = (s: number, ext: string) => ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=440:duration=${s}`, '-ac', '1'], ext);

// OpenAI-style APIs say "no credits" with a 429 (insufficient_quota): a rate limit to callers today.
providerFaultSuite({ plugin, fake: startFake, capability: 'extract_audio', input: { inputMethod: 'base64', audio: b64(tone(1, 'wav')), prompt: 'x' }, service: 'model', expect: { 'out of credits': '503 Rate limit exceeded. Please try again later.' } });

test('helpers: text is split at paragraph boundaries, JSON fences are tolerated, frames are spread evenly', () => {
  assert.deepEqual(split('aaaa\n\nbbbb\n\ncccc', 11), ['aaaa\n\nbbbb', 'cccc']);
  assert.deepEqual(parseJson('```json\n{"a":1}\n```'), { a: 1 });
  assert.equal(parseJson('not json'), undefined);
  assert.deepEqual(spread([1, 2, 3, 4, 5, 6, 7], 3), [1, 4, 7]);
});

test('extract_image: OCR text and the downscaled image reach the vision model; 100 + 10 per image', async () => {
  const png = execFileSync('pdftoppm', ['-r', '200', '-gray', '-png', '-singlefile', '-'], { input: Buffer.from(examplePdfBase64(), 'base64') });
  const r = await t.h.capability('extract_image', { inputMethod: 'base64', images: [b64(png), b64(png)], prompt: 'What does it say?' });
  assert.equal(r.provider, 'extract');
  assert.deepEqual({ reserved: r.reserved, credits: r.credits }, { reserved: 120, credits: 120 });
  assert.equal(r.data.imageCount, 2);
  assert.equal(r.data.creditUsage, 120);
  assert.equal(r.data.prompt, 'What does it say?');
  const seen = t.fake.chats.at(-1)!;
  assert.equal(seen.model, 'vision-1');
  assert.equal(seen.images.length, 2);
  assert.ok(seen.images.every((u) => u.startsWith('data:image/jpeg;base64,')));
  assert.match(seen.text, /Hello from doc_to_text/);
  assert.equal(r.data.results, `Model saw 2 image(s) and ${seen.text.length} characters.`);
});

test('extract_audio: duration measured, audio cut into 30 s chunks and transcribed, 100 + 20 per started minute', async () => {
  const r = await t.h.capability('extract_audio', { inputMethod: 'base64', audio: b64(tone(61, 'mp3')), prompt: 'Summarise.', jsonMode: true }, { includeNative: true });
  assert.ok(Math.abs(r.data.audioDuration - 61) < 0.2, String(r.data.audioDuration));
  assert.deepEqual({ credits: r.credits, creditUsage: r.data.creditUsage }, { credits: 140, creditUsage: 140 });
  // One minute's price held up front (120), grown to the two started minutes once probed; never
  // the 11,500 of the longest allowed recording.
  assert.equal(r.reserved, 140);
  const chunks = t.fake.transcriptions.slice(-3);
  assert.equal(chunks.length, 3);
  assert.ok(Math.abs(chunks.reduce((n, c) => n + c.seconds, 0) - 61) < 1.5);
  assert.equal(chunks[0]!.model, 'whisper-1');
  // jsonMode: the fake's JSON answer comes back parsed.
  assert.equal(typeof r.data.results, 'object');
  assert.match(t.fake.chats.at(-1)!.text, /Transcript of 30\.\d seconds/);
  assert.ok((r.native as { usage: { prompt_tokens: number } }).usage.prompt_tokens > 0);
});

test('extract_audio refuses unsupported formats, over-long audio and a missing prompt with 400', async () => {
  const video = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=5:duration=1', '-pix_fmt', 'yuv420p'], 'mp4');
  assert.equal(await status(t.h.capability('extract_audio', { inputMethod: 'base64', audio: b64(video), prompt: 'x' })), 400);
  assert.equal(await status(t.h.capability('extract_audio', { inputMethod: 'base64', audio: b64(Buffer.from('not audio at all')), prompt: 'x' })), 400);
  const short = await pluginHarness(plugin, { env: { ...t.fake.env, EXTRACT_AUDIO_MAX_SECONDS: '2' } });
  try {
    await assert.rejects(short.capability('extract_audio', { inputMethod: 'base64', audio: b64(tone(3, 'wav')), prompt: 'x' }), /The audio is longer than the 2 s limit\./);
  } finally {
    await short.close();
  }
  assert.equal(await status(t.h.capability('extract_audio', { inputMethod: 'base64', audio: b64(tone(1, 'wav')) })), 400);
});

test('extract_video: keyframes (capped) and the soundtrack go to the vision model; 100 + 10 per started second', async () => {
  const video = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10:duration=4.5', '-f', 'lavfi', '-i', 'sine=frequency=660:duration=4.5', '-pix_fmt', 'yuv420p', '-shortest'], 'webm');
  const before = t.fake.transcriptions.length;
  const r = await t.h.capability('extract_video', { inputMethod: 'base64', video: b64(video), prompt: 'What happens?' });
  assert.ok(Math.abs(r.data.videoDuration - 4.5) < 0.2, String(r.data.videoDuration));
  assert.deepEqual({ credits: r.credits, creditUsage: r.data.creditUsage }, { credits: 150, creditUsage: 150 });
  const seen = t.fake.chats.at(-1)!;
  assert.ok(seen.images.length >= 2 && seen.images.length <= 4, String(seen.images.length));
  assert.match(seen.text, /Frame at 0:00/);
  assert.equal(t.fake.transcriptions.length, before + 1);
  assert.match(seen.text, /Transcript of 4\.\d seconds/);
  const audioOnly = tone(2, 'mp3');
  assert.equal(await status(t.h.capability('extract_video', { inputMethod: 'base64', video: b64(audioOnly), prompt: 'x' })), 400);
});

test('jsonMode: a non-JSON answer is retried once, then 502; the retry that succeeds is used', async () => {
  const img = b64(tone(1, 'wav'));
  t.fake.replies.push('Sure! Here it is', '{"ok":true}');
  const ok = await t.h.capability('extract_audio', { inputMethod: 'base64', audio: img, prompt: 'x', jsonMode: true });
  assert.deepEqual(ok.data.results, { ok: true });
  t.fake.replies.push('no', 'still no');
  assert.equal(await status(t.h.capability('extract_audio', { inputMethod: 'base64', audio: img, prompt: 'x', jsonMode: true })), 502);
});
