/**
 * The extraction routes through the real server against the fake OpenAI-compatible model
 * (issue 15): extract-document (text layer + scanned page, pages charged), extract-image,
 * extract-audio (espeak-ng speech by URL, started minutes), extract-video (started seconds),
 * /extract on a loopback page (scrape + screenshot lanes, JSON Schema), limits, credits, and
 * "not configured" without a model while doc-to-text keeps working.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { scannedPdf, speech, testVideo, textPdf, textPng, tone } from './fixtures/extract/make.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';

const config = pluginsConfig(['web', 'documents', 'doc_text', 'extract']);
let fake: ModelFake;
let s: TestServer;
let key: string;
let origin: Server;
let originUrl: string;
const spoken = speech('The meeting is moved to Thursday at noon.');
// Just past a minute: two started minutes, and two chunks at MODEL_AUDIO_CHUNK_SECONDS=60. The
// service normalises every second of it with ffmpeg (about 1.5 s of CPU here), so one short clip
// serves every audio test.
const overAMinute = tone(61, 'flac');
/** One started minute, for a test that needs a clip's measured price and not the second minute. */
const shortClip = tone(2, 'flac');
const b64 = (b: Buffer) => b.toString('base64');

before(async () => {
  fake = await startFake();
  origin = createServer((req, res) => {
    if (req.url === '/speech.wav' && spoken) return res.writeHead(200, { 'content-type': 'audio/wav' }).end(spoken);
    if (req.url === '/product') {
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><head><title>Blue Kettle</title></head><body><main><article><h1>Blue Kettle</h1><p>The Blue Kettle boils a litre of water in ninety seconds. Price: 39 euros. It is made of stainless steel and ships worldwide.</p></article></main></body></html>');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  s = await startServer({ env: { ...fake.env, ALLOW_PRIVATE_NETWORK: 'true', OFFICE_POOL_SIZE: '1', DOCUMENTS_PREWARM: 'false', MODEL_AUDIO_CHUNK_SECONDS: '60' }, serviceConfig: config });
  ({ key } = await s.createKey({ credits: 100_000 }));
});
after(async () => {
  await s?.close();
  await fake?.close();
  origin?.close();
});

const post = (path: string, body: unknown, k = key) => s.call('POST', path, { key: k, body });
const balance = async (k = key) => (await s.call('GET', '/api/v2/balance', { key: k })).json.data.credits;

test('extract-document: text layer and a scanned page reach the model; 100 + 10 per page, + 5 per page read by OCR', async () => {
  const start = await balance();
  const r = await post('/api/v1/extract-document', {
    inputMethod: 'base64',
    files: [b64(textPdf(['Invoice total is 99 EUR', 'Thank you'])), b64(scannedPdf('Delivery note 4711'))],
    prompt: 'What is the total?',
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual({ pages: r.json.pages, fileCount: r.json.fileCount, creditUsage: r.json.creditUsage, prompt: r.json.prompt }, { pages: 3, fileCount: 2, creditUsage: 135, prompt: 'What is the total?' });
  const seen = fake.chats.at(-1)!;
  assert.match(seen.text, /Invoice total is 99 EUR/);
  assert.match(seen.text, /page 1 \(OCR\) ===\nDelivery note 4711/);
  assert.equal(r.json.results, `Model saw 0 image(s) and ${seen.text.length} characters.`);
  assert.equal(await balance(), start - 135);
});

test('extract-document with jsonMode returns parsed JSON; missing prompt and bad base64 are 400 and free', async () => {
  const r = await post('/api/v1/extract-document', { inputMethod: 'base64', files: [b64(Buffer.from('Plain text memo'))], fileExtension: 'txt', prompt: 'Fields?', jsonMode: true });
  assert.equal(r.status, 200, r.text);
  assert.equal(typeof r.json.results, 'object');
  assert.equal(r.json.creditUsage, 110);
  const start = await balance();
  const missing = await post('/api/v1/extract-document', { inputMethod: 'base64', files: [b64(Buffer.from('x'))] });
  assert.deepEqual({ status: missing.status, error: missing.json.error }, { status: 400, error: "'prompt' parameter is required and must be a non-empty string." });
  const noFiles = await post('/api/v1/extract-document', { inputMethod: 'base64', prompt: 'x' });
  assert.equal(noFiles.status, 400);
  assert.match(noFiles.json.error, /'files' parameter is required/);
  assert.equal((await post('/api/v1/extract-document', { inputMethod: 'base64', files: ['@@@'], prompt: 'x' })).status, 400);
  assert.equal(await balance(), start);
});

test('extract-image: OCR text and image parts, 100 + 10 per image', async () => {
  const r = await post('/api/v1/extract-image', { inputMethod: 'base64', images: [b64(textPng('Parking ticket 2024'))], prompt: 'Read it', jsonMode: true });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual({ imageCount: r.json.imageCount, creditUsage: r.json.creditUsage }, { imageCount: 1, creditUsage: 110 });
  assert.deepEqual(r.json.results, { images: 1, characters: fake.chats.at(-1)!.text.length });
  assert.match(fake.chats.at(-1)!.text, /Parking ticket 2024/);
  const bad = await post('/api/v1/extract-image', { inputMethod: 'base64', images: [b64(Buffer.from('not an image'))], prompt: 'x' });
  assert.equal(bad.status, 400, bad.text);
});

test('extract-audio by URL: speech measured and transcribed; 100 + 20 per started minute', { skip: spoken ? false : 'espeak-ng not installed' }, async () => {
  const before = fake.transcriptions.length;
  const r = await post('/api/v1/extract-audio', { inputMethod: 'url', audio: `${originUrl}/speech.wav`, prompt: 'When is the meeting?' });
  assert.equal(r.status, 200, r.text);
  assert.ok(r.json.audioDuration > 1 && r.json.audioDuration < 10, String(r.json.audioDuration));
  assert.equal(r.json.creditUsage, 120);
  assert.equal(fake.transcriptions.length, before + 1);
  assert.ok(Math.abs(fake.transcriptions.at(-1)!.seconds - r.json.audioDuration) < 0.5);
});

test('extract-audio: a 1 min 1 s tone costs 2 started minutes; a video file and a missing audio URL are 400', async () => {
  const r = await post('/api/v1/extract-audio', { inputMethod: 'base64', audio: b64(overAMinute), prompt: 'x' });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual({ duration: Math.round(r.json.audioDuration), creditUsage: r.json.creditUsage }, { duration: 61, creditUsage: 140 });
  assert.equal((await post('/api/v1/extract-audio', { inputMethod: 'base64', audio: b64(testVideo(1, 'mp4', false)), prompt: 'x' })).status, 400);
  assert.equal((await post('/api/v1/extract-audio', { inputMethod: 'url', audio: `${originUrl}/none.mp3`, prompt: 'x' })).status, 400);
});

test('extract-video: 100 + 10 per started second, keyframes and soundtrack sent', async () => {
  const start = await balance();
  const r = await post('/api/v1/extract-video', { inputMethod: 'base64', video: b64(testVideo(3.2, 'mp4')), prompt: 'Describe' });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual({ duration: Math.round(r.json.videoDuration * 10) / 10, creditUsage: r.json.creditUsage }, { duration: 3.2, creditUsage: 140 });
  assert.ok(fake.chats.at(-1)!.images.length >= 1);
  assert.equal(await balance(), start - 140);
});

test('media and documents hold the price of what they measure, not of the largest allowed input; a key that cannot cover it gets 403 and pays nothing', async () => {
  // The largest allowed audio would cost 11,500 credits: 200 are enough for a 2 s clip (120).
  const { key: small } = await s.createKey({ credits: 200 });
  const audio = await post('/api/v1/extract-audio', { inputMethod: 'base64', audio: b64(shortClip), prompt: 'x' }, small);
  assert.equal(audio.status, 200, audio.text);
  assert.equal(audio.json.creditUsage, 120);
  assert.equal(await balance(small), 80);
  // 80 left: not even one page's price (110) can be held, so the call is refused before any work.
  const doc = await post('/api/v1/extract-document', { inputMethod: 'base64', files: [b64(textPdf(['One page']))], prompt: 'x' }, small);
  assert.equal(doc.status, 403, doc.text);
  assert.equal(await balance(small), 80);

  // 125 credits hold the first minute (120) but not the two the clip turns out to need (140):
  // 403 once it is probed, before anything is transcribed, and the balance is whole again.
  const { key: short } = await s.createKey({ credits: 125 });
  const [chats, transcriptions] = [fake.chats.length, fake.transcriptions.length];
  const refused = await post('/api/v1/extract-audio', { inputMethod: 'base64', audio: b64(overAMinute), prompt: 'x' }, short);
  assert.equal(refused.status, 403, refused.text);
  assert.deepEqual([fake.chats.length, fake.transcriptions.length], [chats, transcriptions]);
  assert.equal(await balance(short), 125);
  const video = await post('/api/v1/extract-video', { inputMethod: 'base64', video: b64(testVideo(1.5, 'mp4')), prompt: 'Describe' }, short);
  assert.equal(video.status, 200, video.text);
  assert.equal(video.json.creditUsage, 120);
  assert.equal(await balance(short), 5);
});

test('/extract: the page through the scrape lane and its screenshot; results follow the schema; 250 credits', async () => {
  const schema = { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name', 'price'] };
  const start = await balance();
  const r = await post('/api/v1/extract', { url: `${originUrl}/product`, schema });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.results, { name: 'sample', price: 1 });
  const seen = fake.chats.at(-1)!;
  assert.match(seen.text, /boils a litre of water in ninety seconds/);
  assert.deepEqual(seen.format?.json_schema?.schema, schema);
  assert.equal(seen.images.length, 1);
  const shot = await fetch(r.json.screenshotUrl);
  assert.equal(shot.status, 200);
  assert.equal(await balance(), start - 250);
  const neither = await post('/api/v1/extract', { url: `${originUrl}/product` });
  assert.deepEqual({ status: neither.status, error: neither.json.error }, { status: 400, error: "Either 'schema' or 'prompt' must be provided." });
});

test('a model rate limit is 503 Rate limit exceeded, and nothing is charged', async () => {
  const start = await balance();
  fake.rateLimit();
  try {
    const r = await post('/api/v1/extract-image', { inputMethod: 'base64', images: [b64(textPng('x'))], prompt: 'x' });
    assert.deepEqual({ status: r.status, error: r.json.error }, { status: 503, error: 'Rate limit exceeded. Please try again later.' });
  } finally {
    fake.reset();
  }
  assert.equal(await balance(), start);
});

test('without a model: extract routes answer Service not configured, discovery says so, doc-to-text still works', async () => {
  const bare = await startServer({ env: { ALLOW_PRIVATE_NETWORK: 'true', DOCUMENTS_PREWARM: 'false' }, serviceConfig: config });
  try {
    const { key: k } = await bare.createKey({ credits: 1000 });
    const r = await bare.call('POST', '/api/v1/extract-document', { key: k, body: { inputMethod: 'base64', files: ['QQ=='], prompt: 'x' } });
    assert.deepEqual({ status: r.status, error: r.json.error }, { status: 500, error: 'Service not configured. Please contact support.' });
    const details = await bare.call('POST', '/api/v2/details', { key: k, body: { id: 'extract_audio' } });
    assert.equal(details.status, 200, details.text);
    assert.deepEqual(details.json.data.providers.map((p: any) => [p.id, p.configured]), [['extract', false]]);
    const text = await bare.call('POST', '/api/v1/doc-to-text', { key: k, body: { inputMethod: 'base64', file: b64(textPdf(['Works without a model'])) } });
    assert.deepEqual({ status: text.status, body: text.json }, { status: 200, body: { text: 'Works without a model' } });
    assert.equal((await bare.call('GET', '/api/v2/balance', { key: k })).json.data.credits, 980);
  } finally {
    await bare.close();
  }
});
