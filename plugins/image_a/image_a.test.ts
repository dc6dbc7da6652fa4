/**
 * image_a: the real client against the loopback fake of its contract (contracts §9), through the
 * executor. What the server-level tests (test/image.test.ts) prove is not repeated here: the model
 * aliases and their prices, the spec texts of nsfw/fail/422/429/html failures, and the caller
 * hanging up cancelling the prediction with its credits released.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SAMPLE_IMAGES, outcome, providerFaultSuite, serveLoopback, withFake, type LoopbackServer } from '../../core/testing/index.js';
import plugin from './index.js';
import { FAKE_VERSION, startFake } from './fake.js';
import { nextPollDelay } from './client.js';

providerFaultSuite({ plugin, fake: startFake, capability: 'generate_ai_image', input: { model: 'img-fast', input: { prompt: 'x' } } });

// Fast polling so the multi-poll scenarios take milliseconds.
const t = withFake(plugin, startFake, { env: { IMAGE_A_POLL_INTERVAL_MS: '20' } });
const generate = (model: string, input: object, h = t.h) => h.capability('generate_ai_image', { model, input });
const lastCreate = () => t.fake.sent('POST /v1/*').filter((r) => !r.path.endsWith('/cancel')).at(-1)!;
const lastPrediction = () => [...t.fake.predictions.values()].at(-1)!;

/** The header of a lossless WebP declaring 16384×16384 pixels (all admission reads). */
const u32 = (n: number) => Buffer.from(new Uint32Array([n >>> 0]).buffer);
const HUGE_WEBP = Buffer.concat([Buffer.from('RIFF'), u32(32), Buffer.from('WEBPVP8L'), u32(20), Buffer.from([0x2f]), u32(16383 | (16383 << 14)), Buffer.alloc(15)]);
// Caller-side images for img-dev / img-edit-pro: a PNG, a huge WebP and a web page.
let pictures: LoopbackServer;
before(async () => {
  pictures = await serveLoopback((req, res) => {
    const [type, body] = req.url === '/cat.png' ? ['image/png', SAMPLE_IMAGES.png.bytes] : req.url === '/huge.webp' ? ['image/webp', HUGE_WEBP] : ['text/html', '<html>not an image</html>'];
    res.writeHead(200, { 'content-type': type as string }).end(body);
  });
});
after(() => pictures.close());

test('img-fast: one create with Prefer: wait, the spec defaults sent upstream, the image stored here, 30 credits', async () => {
  const r = await generate('img-fast', { prompt: 'a red panda' });
  const call = lastCreate();
  assert.deepEqual([call.path, call.headers.prefer], ['/v1/models/black-forest-labs/flux-schnell/predictions', 'wait=60']);
  assert.deepEqual(call.body.input, { prompt: 'a red panda', num_outputs: 1, aspect_ratio: '1:1', output_format: 'webp', output_quality: 80, disable_safety_checker: false, go_fast: true, megapixels: '1', num_inference_steps: 4 });
  assert.equal(t.fake.sent('GET').length, 0, 'finished within the hold: no polls');
  assert.equal(r.data.images.length, 1);
  assert.match(r.data.images[0].url, /^http:\/\/127\.0\.0\.1:0\/files\/[\w-]{32}\?expires=\d+&sig=[0-9a-f]{64}$/);
  assert.deepEqual(await t.h.file(r.data.images[0].url), SAMPLE_IMAGES.webp.bytes);
  assert.deepEqual([r.data.prompt, r.data.creditUsage, r.data.model, r.credits, r.reserved, r.provider], ['a red panda', 30, 'img-fast', 30, 30, 'image_a']);
});

test('a slow prediction is polled at urls.get until it succeeds; formats follow output_format', async () => {
  const r = await generate('img-dev', { prompt: 'a lake [slow]', num_outputs: 3, output_format: 'png' });
  const { id } = lastPrediction();
  assert.deepEqual(t.fake.sent('GET').slice(-2).map((q) => q.path), [`/v1/predictions/${id}`, `/v1/predictions/${id}`]);
  assert.equal(r.data.images.length, 3);
  for (const img of r.data.images) assert.deepEqual(await t.h.file(img.url), SAMPLE_IMAGES.png.bytes);
  assert.deepEqual([r.credits, r.reserved, r.data.creditUsage], [450, 450, 450]);
});

test('partial output is charged for the images returned, reserved for num_outputs; an extra image is neither delivered nor priced', async () => {
  const r = await generate('FLUX.1-schnell', { prompt: 'cats [partial]', num_outputs: 4, output_format: 'jpg' });
  assert.deepEqual(await t.h.file(r.data.images[1].url), SAMPLE_IMAGES.jpg.bytes);
  assert.deepEqual([r.data.images.length, r.credits, r.reserved, r.data.creditUsage], [2, 60, 120, 60]);
  const more = await generate('img-fast', { prompt: 'one [extra]', num_outputs: 1 });
  assert.deepEqual([more.data.images.length, more.credits, more.data.creditUsage], [1, 30, 30]);
});

test('img-pro-v1.1 takes the spec fields but flux-1.1-pro is not sent the ones it lacks; custom sizes pass through', async () => {
  const r = await generate('img-pro-v1.1', { prompt: 'a city', steps: 30, guidance: 4, interval: 3, aspect_ratio: 'custom', width: 1024, height: 768 });
  assert.equal(lastCreate().path, '/v1/models/black-forest-labs/flux-1.1-pro/predictions');
  assert.deepEqual(lastCreate().body.input, { prompt: 'a city', aspect_ratio: 'custom', width: 1024, height: 768, output_format: 'webp', output_quality: 80, safety_tolerance: 2, prompt_upsampling: false });
  assert.equal(r.credits, 500);
  await generate('img-pro', { prompt: 'a city', steps: 30 });
  assert.deepEqual(lastCreate().body.input, { prompt: 'a city', steps: 30, guidance: 3, interval: 2, aspect_ratio: '1:1', output_format: 'webp', output_quality: 80, safety_tolerance: 2, prompt_upsampling: false });
});

test('img-edit-pro: the input image is fetched here and sent inline; kontext keeps safety_tolerance 2; a web page or a huge image is a 400', async () => {
  const r = await generate('img-edit-pro', { prompt: 'make it blue', input_image: `${pictures.url}/cat.png` });
  const sent = lastCreate().body.input;
  assert.deepEqual([sent.input_image, sent.aspect_ratio, sent.safety_tolerance], [`data:image/png;base64,${SAMPLE_IMAGES.png.bytes.toString('base64')}`, 'match_input_image', 2]);
  assert.deepEqual(await t.h.file(r.data.images[0].url), SAMPLE_IMAGES.png.bytes, 'kontext answers png by default');
  const before = t.fake.requests.length;
  assert.equal(await outcome(generate('img-dev', { prompt: 'x', image: `${pictures.url}/page.html` })), "400 Invalid input: 'input.image' is not a jpeg, png, gif or webp image.");
  // Admitted by its header (IMAGE_MAX_PIXELS, issue 24): a 16384×16384 WebP never reaches the provider.
  const huge = "400 'input.input_image' is too large: 16384×16384 pixels (268.4 megapixels); images may have at most 50 megapixels.";
  assert.equal(await outcome(generate('img-edit-pro', { prompt: 'x', input_image: `${pictures.url}/huge.webp` })), huge);
  assert.equal(t.fake.requests.length, before, 'nothing sent upstream');
});

test('failures of its own: a cancelled prediction is a 500; a 201 that is not a prediction, or one web page as the output, a 502', async () => {
  assert.equal(await outcome(generate('img-fast', { prompt: '[canceled]' })), '500 Failed to generate image: the prediction was canceled.');
  assert.equal(await outcome(generate('img-fast', { prompt: '[garbage]' })), '502 Received invalid data structure from image_a service.');
  assert.equal(await outcome(generate('img-design', { prompt: '[html]' })), '502 Received invalid data structure from image_a service.');
});

test('polls: Retry-After of a 429 is honoured and a 500 is retried; backoff grows to its cap', async () => {
  assert.equal((await generate('img-fast', { prompt: 'x [poll429]' })).data.images.length, 1);
  // The fake answers a prediction's first poll 429 with Retry-After: 1; the next may not come sooner (the interval is 20 ms).
  const polls = t.fake.sent('GET').filter((q) => q.path === `/v1/predictions/${lastPrediction().id}`);
  assert.ok(polls[1]!.at - polls[0]!.at >= 1000, 'the next poll waited for Retry-After');
  assert.equal((await generate('img-fast', { prompt: 'x [poll500]' })).data.images.length, 1);
  assert.deepEqual([nextPollDelay(500, 500, '3'), nextPollDelay(500, 500), nextPollDelay(4000, 500), nextPollDelay(100, 20), nextPollDelay(190, 20)], [3000, 750, 5000, 150, 200]);
});

test('deadline: the prediction is cancelled upstream and the call fails uncharged', async () => {
  const short = await t.harness({ IMAGE_A_POLL_INTERVAL_MS: '50', IMAGE_A_DEADLINE_MS: '1000' });
  assert.equal(await outcome(generate('img-fast', { prompt: 'x [hang]' }, short)), '500 Failed to generate image: the model did not finish within 1 s.');
  const { id, status } = lastPrediction();
  assert.deepEqual([t.fake.cancels.includes(id), status], [true, 'canceled'], 'the prediction was cancelled upstream');
  // The hold of the create call is bounded by the deadline too.
  assert.equal(lastCreate().headers.prefer, 'wait=1');
});

test('model settings: a pinned version is created through /v1/predictions; an unknown model is a 500; a malformed one stops boot', async () => {
  await generate('img-fast', { prompt: 'x' }, await t.harness({ IMAGE_A_MODEL_IMG_FAST: `${FAKE_VERSION.model}:${FAKE_VERSION.id}` }));
  assert.deepEqual([lastCreate().path, lastCreate().body.version], ['/v1/predictions', FAKE_VERSION.id]);
  const unknown = await t.harness({ IMAGE_A_MODEL_IMG_DESIGN: 'acme/nope' });
  assert.equal(await outcome(generate('img-design', { prompt: 'x' }, unknown)), '500 Failed to generate image: model acme/nope is not available.');
  await assert.rejects(t.harness({ IMAGE_A_MODEL_IMG_PRO_V1_1: 'not a model' }), /IMAGE_A_MODEL_IMG_PRO_V1_1 must be owner\/name/);
});
