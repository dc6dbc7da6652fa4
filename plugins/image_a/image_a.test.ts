/**
 * image_a: the real client against the loopback fake of its contract (contracts §9), through the
 * executor. Proven through the real server, not here: test/image.test.ts (model aliases and prices,
 * our signed URLs and their bytes, partial output charged per image, the nsfw/fail/422/429/html
 * texts, a caller hanging up cancelling the prediction; every boundary passes the fake's upstream
 * schemas, so no field an upstream model lacks is sent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SAMPLE_IMAGES, fileOrigin, hugePng, outcome, providerFaultSuite, withFake } from '../../core/testing/index.js';
import plugin from './index.js';
import { startFake } from './fake.js';
import { nextPollDelay } from './client.js';

providerFaultSuite({ plugin, fake: startFake, capability: 'generate_ai_image', input: { model: 'img-fast', input: { prompt: 'x' } } });

// Fast polling so the multi-poll scenarios take milliseconds.
const t = withFake(plugin, startFake, { env: { IMAGE_A_POLL_INTERVAL_MS: '20' } });
const generate = (model: string, input: object, h = t.h) => h.capability('generate_ai_image', { model, input });
const lastCreate = () => t.fake.sent('POST /v1/*').filter((r) => !r.path.endsWith('/cancel')).at(-1)!;
const lastPrediction = () => [...t.fake.predictions.values()].at(-1)!;
// Caller-side images for img-dev / img-edit-pro.
const pictures = fileOrigin({ '/cat.png': SAMPLE_IMAGES.png, '/huge.png': { type: 'image/png', bytes: hugePng(16384, 16384) }, '/page.html': { type: 'text/html', bytes: '<html>not an image</html>' } });

test('the create call holds with Prefer: wait and sends the spec defaults explicitly, safety on, custom sizes as given; a quick model needs no poll', async () => {
  const r = await generate('img-fast', { prompt: 'a' });
  assert.deepEqual([lastCreate().path, lastCreate().headers.prefer, t.fake.sent('GET').length], ['/v1/models/black-forest-labs/flux-schnell/predictions', 'wait=60', 0]);
  assert.deepEqual(lastCreate().body.input, { prompt: 'a', num_outputs: 1, aspect_ratio: '1:1', output_format: 'webp', output_quality: 80, disable_safety_checker: false, go_fast: true, megapixels: '1', num_inference_steps: 4 });
  assert.deepEqual(await t.h.file(r.data.images[0].url), SAMPLE_IMAGES.webp.bytes);
  assert.deepEqual([r.data.images.length, r.credits, r.reserved, r.provider], [1, 30, 30, 'image_a']);
  await generate('img-pro', { prompt: 'a', steps: 30, aspect_ratio: 'custom', width: 1024, height: 768 });
  assert.deepEqual(lastCreate().body.input, { prompt: 'a', steps: 30, guidance: 3, interval: 2, aspect_ratio: 'custom', width: 1024, height: 768, output_format: 'webp', output_quality: 80, safety_tolerance: 2, prompt_upsampling: false });
});

test('a slow prediction is polled at urls.get until it succeeds; formats follow output_format; an extra image is neither delivered nor priced', async () => {
  const r = await generate('img-dev', { prompt: 'a lake [slow]', num_outputs: 3, output_format: 'png' });
  assert.deepEqual(t.fake.sent('GET').slice(-2).map((q) => q.path), Array(2).fill(`/v1/predictions/${lastPrediction().id}`));
  assert.deepEqual(await Promise.all(r.data.images.map((img: { url: string }) => t.h.file(img.url))), Array(3).fill(SAMPLE_IMAGES.png.bytes));
  assert.deepEqual([r.credits, r.reserved, r.data.creditUsage], [450, 450, 450]);
  const more = await generate('img-fast', { prompt: 'one [extra]', num_outputs: 1 });
  assert.deepEqual([more.data.images.length, more.credits, more.data.creditUsage], [1, 30, 30]);
});

test('img-edit-pro: the input image is fetched here and sent inline; kontext keeps safety_tolerance 2; a web page or a huge image is a 400', async () => {
  const r = await generate('img-edit-pro', { prompt: 'make it blue', input_image: `${pictures.url}/cat.png` });
  const inline = `data:image/png;base64,${SAMPLE_IMAGES.png.bytes.toString('base64')}`;
  assert.deepEqual(lastCreate().body.input, { prompt: 'make it blue', input_image: inline, aspect_ratio: 'match_input_image', safety_tolerance: 2 });
  assert.deepEqual(await t.h.file(r.data.images[0].url), SAMPLE_IMAGES.png.bytes, 'kontext answers png by default');
  const before = t.fake.requests.length;
  assert.equal(await outcome(generate('img-dev', { prompt: 'x', image: `${pictures.url}/page.html` })), "400 Invalid input: 'input.image' is not a jpeg, png, gif or webp image.");
  const huge = "400 'input.input_image' is too large: 16384×16384 pixels (268.4 megapixels); images may have at most 50 megapixels.";
  assert.equal(await outcome(generate('img-edit-pro', { prompt: 'x', input_image: `${pictures.url}/huge.png` })), huge, 'admitted by its header (IMAGE_MAX_PIXELS, issue 24)');
  assert.equal(t.fake.requests.length, before, 'nothing sent upstream');
});

test('a create answering a body that is not a prediction is a 502; a prediction that ended cancelled is a 500', async () => {
  t.fake.failWith(201, { hello: 'world' });
  assert.equal(await outcome(generate('img-fast', { prompt: 'x' })), '502 Received invalid data structure from image_a service.');
  t.fake.failWith(201, { id: 'p1', status: 'canceled', output: null, error: null });
  assert.equal(await outcome(generate('img-fast', { prompt: 'x' })), '500 Failed to generate image: the prediction was canceled.');
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
  assert.equal(lastCreate().headers.prefer, 'wait=1', 'the hold of the create call is bounded by the deadline too');
});

test('model settings: a pinned version is created through /v1/predictions; an unknown model is a 500; a malformed one stops boot', async () => {
  await generate('img-fast', { prompt: 'x' }, await t.harness({ IMAGE_A_MODEL_IMG_FAST: 'black-forest-labs/flux-schnell:5599ed30703d' }));
  assert.deepEqual([lastCreate().path, lastCreate().body.version], ['/v1/predictions', '5599ed30703d']);
  const unknown = await t.harness({ IMAGE_A_MODEL_IMG_DESIGN: 'acme/nope' });
  assert.equal(await outcome(generate('img-design', { prompt: 'x' }, unknown)), '500 Failed to generate image: model acme/nope is not available.');
  await assert.rejects(t.harness({ IMAGE_A_MODEL_IMG_PRO_V1_1: 'not a model' }), /IMAGE_A_MODEL_IMG_PRO_V1_1 must be owner\/name/);
});
