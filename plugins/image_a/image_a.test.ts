/** image_a: the real client against the loopback fake of its contract (contracts §9), through the executor. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pluginHarness, providerFaultSuite, serveLoopback, withFake, type LoopbackServer } from '../../core/testing/index.js';
import plugin from './index.js';
import { FAKE_IMAGES, FAKE_VERSION, startImageAFake } from './fake.js';
import { nextPollDelay } from './client.js';

let pictures: LoopbackServer;
/** The header of a lossless WebP declaring 16384×16384 pixels (all admission reads). */
const HUGE_WEBP = (() => {
  const b = Buffer.alloc(40);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(32, 4);
  b.write('WEBPVP8L', 8, 'latin1');
  b.writeUInt32LE(20, 16);
  b[20] = 0x2f;
  b.writeUInt32LE(16383 | (16383 << 14), 21);
  return b;
})();
providerFaultSuite({ plugin, fake: startImageAFake, capability: 'generate_ai_image', input: { model: 'img-fast', input: { prompt: 'x' } } });

/** Fast polling so the multi-poll scenarios take milliseconds. */
const quick = { IMAGE_A_POLL_INTERVAL_MS: '20' };

const t = withFake(plugin, startImageAFake, { env: quick });
before(async () => {
  // Caller-side images for img-dev / img-edit-pro: a PNG and a web page.
  pictures = await serveLoopback((req, res) => {
    if (req.url === '/cat.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(FAKE_IMAGES.png!.bytes);
    if (req.url === '/huge.webp') return void res.writeHead(200, { 'content-type': 'image/webp' }).end(HUGE_WEBP);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not an image</html>');
  });
});
after(() => pictures.close());

/** The status and message a call ends with (200 and '' on success). */
const outcome = (p: Promise<unknown>) => p.then(() => ({ status: 200, message: '' }), (e: { status?: number; message: string }) => ({ status: e.status ?? 0, message: e.message }));
/** Waits for `cond`; gives up (failing the test) after 15 s rather than hanging the run. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), `gave up waiting for ${what}`);
}
const lastCreate = () => t.fake.requests.filter((r) => r.method === 'POST' && !r.path.endsWith('/cancel')).at(-1)!;


test('img-fast: one create with Prefer: wait, the spec defaults sent upstream, the image stored here, 30 credits', async () => {
  const r = await t.h.capability('generate_ai_image', { model: 'img-fast', input: { prompt: 'a red panda' } });
  const call = lastCreate();
  assert.equal(call.path, '/v1/models/black-forest-labs/flux-schnell/predictions');
  assert.equal(call.headers.prefer, 'wait=60');
  assert.deepEqual(call.body.input, { prompt: 'a red panda', num_outputs: 1, aspect_ratio: '1:1', output_format: 'webp', output_quality: 80, disable_safety_checker: false, go_fast: true, megapixels: '1', num_inference_steps: 4 });
  assert.equal(t.fake.requests.filter((q) => q.method === 'GET').length, 0, 'finished within the hold: no polls');
  assert.equal(r.data.images.length, 1);
  assert.match(r.data.images[0].url, /^http:\/\/127\.0\.0\.1:0\/files\/[\w-]{32}\?expires=\d+&sig=[0-9a-f]{64}$/);
  assert.deepEqual(await t.h.file(r.data.images[0].url), FAKE_IMAGES.webp!.bytes);
  assert.deepEqual({ prompt: r.data.prompt, creditUsage: r.data.creditUsage, model: r.data.model }, { prompt: 'a red panda', creditUsage: 30, model: 'img-fast' });
  assert.deepEqual({ credits: r.credits, reserved: r.reserved, provider: r.provider }, { credits: 30, reserved: 30, provider: 'image_a' });
});

test('a slow prediction is polled at urls.get until it succeeds; formats follow output_format', async () => {
  const r = await t.h.capability('generate_ai_image', { model: 'img-dev', input: { prompt: 'a lake [slow]', num_outputs: 3, output_format: 'png' } });
  const id = [...t.fake.predictions.values()].at(-1)!.id;
  assert.deepEqual(t.fake.requests.filter((q) => q.method === 'GET').slice(-2).map((q) => q.path), [`/v1/predictions/${id}`, `/v1/predictions/${id}`]);
  assert.equal(r.data.images.length, 3);
  for (const img of r.data.images) assert.deepEqual(await t.h.file(img.url), FAKE_IMAGES.png!.bytes);
  assert.deepEqual({ credits: r.credits, reserved: r.reserved, creditUsage: r.data.creditUsage }, { credits: 450, reserved: 450, creditUsage: 450 });
});

test('partial output: charged for the images returned, reserved for num_outputs', async () => {
  const r = await t.h.capability('generate_ai_image', { model: 'FLUX.1-schnell', input: { prompt: 'cats [partial]', num_outputs: 4, output_format: 'jpg' } });
  assert.equal(r.data.images.length, 2);
  assert.deepEqual(await t.h.file(r.data.images[1].url), FAKE_IMAGES.jpg!.bytes);
  assert.deepEqual({ credits: r.credits, reserved: r.reserved, creditUsage: r.data.creditUsage, model: r.data.model }, { credits: 60, reserved: 120, creditUsage: 60, model: 'FLUX.1-schnell' });
  // A model answering more than num_outputs: only what was asked for is delivered and priced.
  const more = await t.h.capability('generate_ai_image', { model: 'img-fast', input: { prompt: 'one [extra]', num_outputs: 1 } });
  assert.deepEqual({ images: more.data.images.length, credits: more.credits, creditUsage: more.data.creditUsage }, { images: 1, credits: 30, creditUsage: 30 });
});

test('img-pro-v1.1 takes the spec fields but flux-1.1-pro is not sent the ones it lacks; custom sizes pass through', async () => {
  const r = await t.h.capability('generate_ai_image', { model: 'img-pro-v1.1', input: { prompt: 'a city', steps: 30, guidance: 4, interval: 3, aspect_ratio: 'custom', width: 1024, height: 768 } });
  const call = lastCreate();
  assert.equal(call.path, '/v1/models/black-forest-labs/flux-1.1-pro/predictions');
  assert.deepEqual(call.body.input, { prompt: 'a city', aspect_ratio: 'custom', width: 1024, height: 768, output_format: 'webp', output_quality: 80, safety_tolerance: 2, prompt_upsampling: false });
  assert.equal(r.credits, 500);
  await t.h.capability('generate_ai_image', { model: 'img-pro', input: { prompt: 'a city', steps: 30 } });
  assert.deepEqual(lastCreate().body.input, { prompt: 'a city', steps: 30, guidance: 3, interval: 2, aspect_ratio: '1:1', output_format: 'webp', output_quality: 80, safety_tolerance: 2, prompt_upsampling: false });
});

test('img-edit-pro: the input image is fetched here and sent inline; kontext keeps safety_tolerance 2; a web page is a 400', async () => {
  const r = await t.h.capability('generate_ai_image', { model: 'img-edit-pro', input: { prompt: 'make it blue', input_image: `${pictures.url}/cat.png` } });
  const sent = lastCreate().body.input;
  assert.equal(sent.input_image, `data:image/png;base64,${FAKE_IMAGES.png!.bytes.toString('base64')}`);
  assert.deepEqual({ aspect_ratio: sent.aspect_ratio, safety_tolerance: sent.safety_tolerance }, { aspect_ratio: 'match_input_image', safety_tolerance: 2 });
  assert.deepEqual(await t.h.file(r.data.images[0].url), FAKE_IMAGES.png!.bytes, 'kontext answers png by default');
  const before = t.fake.requests.length;
  assert.deepEqual(await outcome(t.h.capability('generate_ai_image', { model: 'img-dev', input: { prompt: 'x', image: `${pictures.url}/page.html` } })), {
    status: 400,
    message: "Invalid input: 'input.image' is not a jpeg, png, gif or webp image.",
  });
  assert.equal(t.fake.requests.length, before, 'nothing sent upstream');
  // Admitted by its header (IMAGE_MAX_PIXELS, issue 24): a 16384×16384 WebP never reaches the provider.
  assert.deepEqual(await outcome(t.h.capability('generate_ai_image', { model: 'img-edit-pro', input: { prompt: 'x', input_image: `${pictures.url}/huge.webp` } })), {
    status: 400,
    message: "'input.input_image' is too large: 16384×16384 pixels (268.4 megapixels); images may have at most 50 megapixels.",
  });
  assert.equal(t.fake.requests.length, before, 'nothing sent upstream');
});

test('failures map to the spec: safety 400, model failure and cancel 500, upstream 422 400, 429 503, garbage and non-image 502', async () => {
  const run = (prompt: string, model = 'img-fast') => outcome(t.h.capability('generate_ai_image', { model, input: { prompt } }));
  assert.deepEqual(await run('[nsfw]'), { status: 400, message: 'Failed to generate image: All generated images contained NSFW content. Try running it again with a different prompt.' });
  assert.deepEqual(await run('[fail]'), { status: 500, message: 'Failed to generate image: CUDA out of memory. Tried to allocate 2.00 GiB' });
  assert.deepEqual(await run('[canceled]'), { status: 500, message: 'Failed to generate image: the prediction was canceled.' });
  assert.deepEqual(await run('[422]'), { status: 400, message: 'Invalid input: input.prompt: prompt is too long for this model.' });
  assert.deepEqual(await run('[429]'), { status: 503, message: 'Rate limit exceeded. Please try again later.' });
  assert.deepEqual(await run('[garbage]'), { status: 502, message: 'Received invalid data structure from image_a service.' });
  assert.deepEqual(await run('[html]', 'img-design'), { status: 502, message: 'Received invalid data structure from image_a service.' });
});

test('polls: Retry-After of a 429 is honoured and a 500 is retried; backoff grows to its cap', async () => {
  const r429 = await t.h.capability('generate_ai_image', { model: 'img-fast', input: { prompt: 'x [poll429]' } });
  assert.equal(r429.data.images.length, 1);
  // The fake answers a prediction's first poll 429 with Retry-After: 1; the next may not come sooner (the interval is 20 ms).
  const id = [...t.fake.predictions.values()].at(-1)!.id;
  const polls = t.fake.requests.filter((q) => q.method === 'GET' && q.path === `/v1/predictions/${id}`);
  assert.ok(polls[1]!.at - polls[0]!.at >= 1000, 'the next poll waited for Retry-After');
  const r500 = await t.h.capability('generate_ai_image', { model: 'img-fast', input: { prompt: 'x [poll500]' } });
  assert.equal(r500.data.images.length, 1);
  assert.equal(nextPollDelay(500, 500, '3'), 3000);
  assert.equal(nextPollDelay(500, 500), 750);
  assert.equal(nextPollDelay(4000, 500), 5000);
  assert.equal(nextPollDelay(100, 20), 150);
  assert.equal(nextPollDelay(190, 20), 200);
});

test('deadline: the prediction is cancelled upstream and the call fails uncharged', async () => {
  const short = await pluginHarness(plugin, { env: { ...t.fake.env, IMAGE_A_POLL_INTERVAL_MS: '50', IMAGE_A_DEADLINE_MS: '1000' } });
  try {
    assert.deepEqual(await outcome(short.capability('generate_ai_image', { model: 'img-fast', input: { prompt: 'x [hang]' } })), { status: 500, message: 'Failed to generate image: the model did not finish within 1 s.' });
    const id = [...t.fake.predictions.values()].at(-1)!.id;
    assert.ok(t.fake.cancels.includes(id), 'the prediction was cancelled upstream');
    assert.equal(t.fake.predictions.get(id)!.status, 'canceled');
    // The hold of the create call is bounded by the deadline too.
    assert.equal(lastCreate().headers.prefer, 'wait=1');
  } finally {
    await short.close();
  }
});

test('the caller going away cancels the prediction upstream', async () => {
  const ctl = new AbortController();
  const call = outcome(t.h.capability('generate_ai_image', { model: 'img-fast', input: { prompt: 'x [hang]' } }, { signal: ctl.signal }));
  await until(() => [...t.fake.predictions.values()].some((p) => p.input.prompt === 'x [hang]' && p.polls > 0 && !t.fake.cancels.includes(p.id)), 'a poll');
  const id = [...t.fake.predictions.values()].filter((p) => p.input.prompt === 'x [hang]').at(-1)!.id;
  ctl.abort(new Error('client disconnected'));
  assert.notEqual((await call).status, 200);
  await until(() => t.fake.cancels.includes(id), 'the cancel call');
  assert.equal(t.fake.predictions.get(id)!.status, 'canceled');
});

test('model settings: a pinned version is created through /v1/predictions; an unknown model is a 500; a malformed one stops boot', async () => {
  const pinned = await pluginHarness(plugin, { env: { ...t.fake.env, IMAGE_A_MODEL_IMG_FAST: `${FAKE_VERSION.model}:${FAKE_VERSION.id}` } });
  try {
    await pinned.capability('generate_ai_image', { model: 'img-fast', input: { prompt: 'x' } });
    assert.deepEqual({ path: lastCreate().path, version: lastCreate().body.version }, { path: '/v1/predictions', version: FAKE_VERSION.id });
  } finally {
    await pinned.close();
  }
  const unknown = await pluginHarness(plugin, { env: { ...t.fake.env, IMAGE_A_MODEL_IMG_DESIGN: 'acme/nope' } });
  try {
    assert.deepEqual(await outcome(unknown.capability('generate_ai_image', { model: 'img-design', input: { prompt: 'x' } })), { status: 500, message: 'Failed to generate image: model acme/nope is not available.' });
  } finally {
    await unknown.close();
  }
  await assert.rejects(pluginHarness(plugin, { env: { ...t.fake.env, IMAGE_A_MODEL_IMG_PRO_V1_1: 'not a model' } }), /IMAGE_A_MODEL_IMG_PRO_V1_1 must be owner\/name/);
});
