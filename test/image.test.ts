/**
 * `POST /api/v1/generate-ai-image` through the real server against the image_a fake (spec §4.7,
 * §8.1, §8.2, issue 16): aliases, our stored files and their expiry, `permanent`, credits per image
 * returned, failures not charged, cancellation upstream when the client hangs up, the SSRF guard
 * on input images, and "not configured". Then input validation: every boundary of every model's
 * ranges and enums. A value just inside passes and is generated; one just outside is a 400 naming
 * the field, with nothing sent upstream and nothing reserved or charged.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { SAMPLE_IMAGES, serveLoopback, type LoopbackServer } from '../core/testing/index.js';
import { PERMANENT_EXPIRES } from '../core/engines/files/types.js';
import { startFake as startImageAFake, type ImageAFake } from '../plugins/image_a/fake.js';

const config = pluginsConfig(['image_a']);
const ROUTE = '/api/v1/generate-ai-image';

/** Waits for `cond`; gives up (failing the test) after 15 s rather than hanging the run. */
async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`gave up waiting for ${what}`);
}

/** Downloads one of our image URLs. */
async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer; cache: string | null }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()), cache: res.headers.get('cache-control') };
}

describe('generate-ai-image through the server', () => {
  let fake: ImageAFake;
  let s: TestServer;
  let key: string;
  const generate = (body: unknown, k = key) => s.call('POST', ROUTE, { key: k, body });
  const balance = async (k = key) => (await s.call('GET', '/api/v2/balance', { key: k })).json.data as { credits: number; reserved: number };
  const creates = () => fake.requests.filter((r) => r.method === 'POST' && !r.path.endsWith('/cancel'));

  before(async () => {
    fake = await startImageAFake();
    s = await startServer({ env: { ...fake.env, IMAGE_A_POLL_INTERVAL_MS: '20', ALLOW_PRIVATE_NETWORK: 'true' }, serviceConfig: config });
    ({ key } = await s.createKey({ credits: 100_000, rateLimitPerMinute: 100_000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });

  it('the original service model names are aliases: the mapped model runs, its price is charged, the name is echoed', async () => {
    const aliases: [string, string, number][] = [
      ['FLUX.1-schnell', 'black-forest-labs/flux-schnell', 30],
      ['FLUX.1-dev', 'black-forest-labs/flux-dev', 150],
      ['FLUX.1-pro', 'black-forest-labs/flux-pro', 300],
      ['FLUX.1.1-pro', 'black-forest-labs/flux-1.1-pro', 500],
      ['FLUX.1-kontext-pro', 'black-forest-labs/flux-kontext-pro', 200],
      ['recraft-v3', 'recraft-ai/recraft-v3', 200],
    ];
    for (const [alias, upstream, price] of aliases) {
      const r = await generate({ model: alias, input: { prompt: `an alias ${alias}` } });
      assert.equal(r.status, 200, `${alias}: ${r.text}`);
      assert.equal(creates().at(-1)!.path, `/v1/models/${upstream}/predictions`);
      assert.deepEqual({ model: r.json.model, prompt: r.json.prompt, creditUsage: r.json.creditUsage, charged: r.headers['x-credits-charged'] }, { model: alias, prompt: `an alias ${alias}`, creditUsage: price, charged: String(price) });
    }
  });

  it('images are ours: signed URLs on this server serving the bytes the model made, kept 24 hours', async () => {
    const before = Date.now();
    const r = await generate({ model: 'img-fast', input: { prompt: 'two squares', num_outputs: 2, output_format: 'png' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.images.length, 2);
    for (const { url } of r.json.images) {
      assert.ok(url.startsWith(`${s.url}/files/`), `${url} is on this server`);
      const expires = Number(new URL(url).searchParams.get('expires'));
      assert.ok(Math.abs(expires * 1000 - (before + 24 * 3600 * 1000)) < 60_000, 'expires in 24 h');
      const got = await download(url);
      assert.deepEqual({ status: got.status, type: got.type }, { status: 200, type: 'image/png' });
      assert.deepEqual(got.bytes, SAMPLE_IMAGES.png.bytes);
    }
    // Not the provider's delivery URL: the fake's file is not what the caller was given.
    assert.ok(!JSON.stringify(r.json).includes('/delivery/'), 'no provider URL leaks');
  });

  it('permanent: true keeps the images without an expiry', async () => {
    const r = await generate({ model: 'img-design', input: { prompt: 'a logo' }, permanent: true });
    assert.equal(r.status, 200, r.text);
    const url = new URL(r.json.images[0].url);
    assert.equal(Number(url.searchParams.get('expires')), PERMANENT_EXPIRES);
    const got = await download(url.toString());
    assert.deepEqual({ status: got.status, type: got.type, same: got.bytes.equals(SAMPLE_IMAGES.webp.bytes) }, { status: 200, type: 'image/webp', same: true });
  });

  it('credits: reserved for num_outputs, charged for the images returned', async () => {
    const start = (await balance()).credits;
    const r = await generate({ model: 'img-fast', input: { prompt: 'four cats [partial]', num_outputs: 4 } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual({ images: r.json.images.length, creditUsage: r.json.creditUsage, charged: r.headers['x-credits-charged'] }, { images: 2, creditUsage: 60, charged: '60' });
    assert.deepEqual(await balance().then((b) => ({ credits: b.credits, reserved: b.reserved })), { credits: start - 60, reserved: 0 });
    // A key that cannot cover num_outputs is refused before the provider is asked, even if fewer might come back.
    const { key: small } = await s.createKey({ credits: 100 });
    const sent = creates().length;
    const refused = await generate({ model: 'img-fast', input: { prompt: 'four dogs', num_outputs: 4 } }, small);
    assert.deepEqual({ status: refused.status, error: refused.json.error }, { status: 403, error: 'Insufficient credits. Please top up your account.' });
    assert.equal(creates().length, sent);
    assert.equal((await generate({ model: 'img-fast', input: { prompt: 'three dogs', num_outputs: 3 } }, small)).status, 200);
    assert.equal((await balance(small)).credits, 10);
  });

  it('failures answer the spec texts and cost nothing', async () => {
    const start = (await balance()).credits;
    const cases: [string, number, string][] = [
      ['[nsfw]', 400, 'Failed to generate image: All generated images contained NSFW content. Try running it again with a different prompt.'],
      ['[fail]', 500, 'Failed to generate image: CUDA out of memory. Tried to allocate 2.00 GiB'],
      ['[422]', 400, 'Invalid input: input.prompt: prompt is too long for this model.'],
      ['[429]', 503, 'Rate limit exceeded. Please try again later.'],
      ['[html]', 502, 'Received invalid data structure from image_a service.'],
    ];
    for (const [tag, status, error] of cases) {
      const r = await generate({ model: 'img-dev', input: { prompt: `x ${tag}` } });
      assert.deepEqual({ status: r.status, error: r.json.error }, { status, error }, tag);
    }
    assert.deepEqual(await balance().then((b) => ({ credits: b.credits, reserved: b.reserved })), { credits: start, reserved: 0 });
  });

  it('a client that hangs up gets its prediction cancelled upstream and its credits released', async () => {
    const start = (await balance()).credits;
    const ctl = new AbortController();
    const pending = fetch(s.url + ROUTE, { method: 'POST', signal: ctl.signal, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'img-pro', input: { prompt: 'never done [hang]' } }) }).catch((e) => e);
    await until(() => [...fake.predictions.values()].some((p) => p.input.prompt === 'never done [hang]' && p.polls > 0), 'the first poll');
    assert.equal((await balance()).reserved, 300, 'reserved while running');
    const id = [...fake.predictions.values()].find((p) => p.input.prompt === 'never done [hang]')!.id;
    ctl.abort();
    await pending;
    await until(() => fake.cancels.includes(id), 'the cancel call');
    assert.equal(fake.predictions.get(id)!.status, 'canceled');
    await until(async () => (await balance()).reserved === 0, 'the reservation to be released');
    assert.equal((await balance()).credits, start);
  });

  it('the job stays on the direct lane: v2 does not list or run it', async () => {
    const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'generate_ai_image', input: { model: 'img-fast', input: { prompt: 'x' } } } });
    assert.equal(r.status, 404);
  });
});

describe('generate-ai-image with the SSRF guard on and a retention cap', () => {
  let fake: ImageAFake;
  let pictures: LoopbackServer;
  let s: TestServer;
  let key: string;

  before(async () => {
    fake = await startImageAFake();
    pictures = await serveLoopback((_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(SAMPLE_IMAGES.png.bytes));
    s = await startServer({ env: { ...fake.env, FILES_MAX_RETENTION_MS: '1500' }, serviceConfig: config });
    ({ key } = await s.createKey({ credits: 10_000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
    await pictures?.close();
  });

  it('an input image on a private address is refused (400) and never reaches the provider', async () => {
    const r = await s.call('POST', ROUTE, { key, body: { model: 'img-edit-pro', input: { prompt: 'edit', input_image: `${pictures.url}/cat.png` } } });
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.error, /^Invalid input: 'input\.input_image' could not be fetched \(URL not allowed: 127\.0\.0\.1 resolves to a \w+ address/);
    assert.equal(fake.requests.length, 0);
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 10_000);
  });

  it('FILES_MAX_RETENTION_MS ends even permanent images: the link works, then answers 404', async () => {
    const r = await s.call('POST', ROUTE, { key, body: { model: 'img-fast', input: { prompt: 'short-lived' }, permanent: true } });
    assert.equal(r.status, 200, r.text);
    const url = r.json.images[0].url as string;
    const expires = Number(new URL(url).searchParams.get('expires'));
    assert.ok(expires < PERMANENT_EXPIRES, 'capped');
    assert.equal((await download(url)).status, 200);
    await new Promise((res) => setTimeout(res, Math.max(0, expires * 1000 - Date.now()) + 100));
    const gone = await download(url);
    assert.deepEqual({ status: gone.status, body: JSON.parse(gone.bytes.toString()) }, { status: 404, body: { error: 'File not found or the download link has expired.' } });
  });
});

describe('generate-ai-image without IMAGE_A_API_KEY', () => {
  it('answers "Service not configured" for a valid body and still names a bad field', async () => {
    const s = await startServer({ env: {}, serviceConfig: config });
    try {
      const { key } = await s.createKey({ credits: 1000 });
      const ok = await s.call('POST', ROUTE, { key, body: { model: 'img-fast', input: { prompt: 'x' } } });
      assert.deepEqual({ status: ok.status, body: ok.json }, { status: 500, body: { error: 'Service not configured. Please contact support.' } });
      const bad = await s.call('POST', ROUTE, { key, body: { model: 'img-fast', input: { prompt: 'x', num_outputs: 9 } } });
      assert.deepEqual({ status: bad.status, body: bad.json }, { status: 400, body: { error: "Invalid input: 'input.num_outputs' must be at most 4 (model img-fast)." } });
      assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 1000);
    } finally {
      await s.close();
    }
  });
});

type Case = [model: string, input: Record<string, unknown>, field?: string];

const P = { prompt: 'a boundary' };
const custom = (width: number, height = 512) => ({ ...P, aspect_ratio: 'custom', width, height });

/** [model, input] that must pass. */
const valid: Case[] = [
  ['img-fast', { ...P, num_outputs: 1 }], ['img-fast', { ...P, num_outputs: 4 }],
  ['img-fast', { ...P, num_inference_steps: 1 }], ['img-fast', { ...P, num_inference_steps: 4 }],
  ['img-fast', { ...P, output_quality: 0 }], ['img-fast', { ...P, output_quality: 100 }],
  ['img-fast', { ...P, aspect_ratio: '9:21', megapixels: '0.25', output_format: 'jpg', go_fast: false, disable_safety_checker: true, seed: 42 }],
  ['img-dev', { ...P, num_inference_steps: 1 }], ['img-dev', { ...P, num_inference_steps: 50 }],
  ['img-dev', { ...P, guidance: 0 }], ['img-dev', { ...P, guidance: 10 }],
  ['img-dev', { ...P, prompt_strength: 0 }], ['img-dev', { ...P, prompt_strength: 1 }],
  ['img-pro', { ...P, steps: 1 }], ['img-pro', { ...P, steps: 50 }],
  ['img-pro', { ...P, guidance: 2 }], ['img-pro', { ...P, guidance: 5 }],
  ['img-pro', { ...P, interval: 1 }], ['img-pro', { ...P, interval: 4 }],
  ['img-pro', { ...P, safety_tolerance: 1 }], ['img-pro', { ...P, safety_tolerance: 5 }],
  ['img-pro', custom(256, 256)], ['img-pro', custom(1440, 1440)],
  ['img-pro-v1.1', { ...P, steps: 50, guidance: 5, interval: 4 }], ['img-pro-v1.1', custom(1440, 256)], ['img-pro-v1.1', { ...P, safety_tolerance: 5, prompt_upsampling: true }],
  ['img-edit-pro', { ...P, aspect_ratio: '1:2', seed: 7 }],
  ['img-design', { prompt: 'x'.repeat(1000), size: '1707x1024', style: 'realistic_image/motion_blur' }],
];

/** [model, input, the field the 400 must name]. */
const invalid: Case[] = [
  ['img-fast', { ...P, num_outputs: 0 }, 'input.num_outputs'], ['img-fast', { ...P, num_outputs: 5 }, 'input.num_outputs'], ['img-fast', { ...P, num_outputs: 1.5 }, 'input.num_outputs'],
  ['img-fast', { ...P, num_inference_steps: 0 }, 'input.num_inference_steps'], ['img-fast', { ...P, num_inference_steps: 5 }, 'input.num_inference_steps'],
  ['img-fast', { ...P, output_quality: -1 }, 'input.output_quality'], ['img-fast', { ...P, output_quality: 101 }, 'input.output_quality'],
  ['img-fast', { ...P, aspect_ratio: 'custom' }, 'input.aspect_ratio'], ['img-fast', { ...P, output_format: 'gif' }, 'input.output_format'],
  ['img-fast', { ...P, megapixels: '2' }, 'input.megapixels'], ['img-fast', { ...P, go_fast: 'yes' }, 'input.go_fast'],
  ['img-fast', { ...P, guidance: 3 }, 'input.guidance'], ['img-fast', { num_outputs: 2 }, 'input.prompt'], ['img-fast', { prompt: '' }, 'input.prompt'],
  ['img-dev', { ...P, num_inference_steps: 51 }, 'input.num_inference_steps'], ['img-dev', { ...P, guidance: -0.1 }, 'input.guidance'], ['img-dev', { ...P, guidance: 10.5 }, 'input.guidance'],
  ['img-dev', { ...P, prompt_strength: 1.1 }, 'input.prompt_strength'], ['img-dev', { ...P, num_outputs: 5 }, 'input.num_outputs'], ['img-dev', { ...P, image: 'not a url' }, 'input.image'],
  ['img-pro', { ...P, steps: 0 }, 'input.steps'], ['img-pro', { ...P, steps: 51 }, 'input.steps'],
  ['img-pro', { ...P, guidance: 1.9 }, 'input.guidance'], ['img-pro', { ...P, guidance: 5.1 }, 'input.guidance'],
  ['img-pro', { ...P, interval: 0.5 }, 'input.interval'], ['img-pro', { ...P, interval: 4.5 }, 'input.interval'],
  ['img-pro', { ...P, safety_tolerance: 0 }, 'input.safety_tolerance'], ['img-pro', { ...P, safety_tolerance: 6 }, 'input.safety_tolerance'],
  ['img-pro', custom(224), 'input.width'], ['img-pro', custom(1472), 'input.width'], ['img-pro', custom(300), 'input.width'], ['img-pro', custom(512, 1000), 'input.height'],
  ['img-pro', { ...P, aspect_ratio: 'custom', width: 512 }, 'input.height'], ['img-pro', { ...P, width: 512, height: 512 }, 'input.width'],
  ['img-pro', { ...P, num_outputs: 2 }, 'input.num_outputs'], ['img-pro', { ...P, aspect_ratio: '21:9' }, 'input.aspect_ratio'],
  ['img-pro-v1.1', custom(1472), 'input.width'], ['img-pro-v1.1', { ...P, safety_tolerance: 6 }, 'input.safety_tolerance'], ['img-pro-v1.1', { ...P, steps: 51 }, 'input.steps'],
  ['img-edit-pro', { ...P, aspect_ratio: 'custom' }, 'input.aspect_ratio'], ['img-edit-pro', { ...P, input_image: 'ftp://example.org/a.png' }, 'input.input_image'],
  ['img-edit-pro', { ...P, output_format: 'png' }, 'input.output_format'],
  ['img-design', { prompt: 'x'.repeat(1001) }, 'input.prompt'], ['img-design', { ...P, size: '512x512' }, 'input.size'],
  ['img-design', { ...P, style: 'cartoon' }, 'input.style'], ['img-design', { ...P, num_outputs: 2 }, 'input.num_outputs'],
];

const PRICES: Record<string, number> = { 'img-fast': 30, 'img-dev': 150, 'img-pro': 300, 'img-pro-v1.1': 500, 'img-edit-pro': 200, 'img-design': 200 };

describe('generate-ai-image validation (spec §4.7)', () => {
  let fake: ImageAFake;
  let s: TestServer;
  let key: string;
  const credits = 1_000_000;
  const generate = (body: unknown) => s.call('POST', '/api/v1/generate-ai-image', { key, body });
  const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data;

  before(async () => {
    fake = await startImageAFake();
    s = await startServer({ env: { ...fake.env, IMAGE_A_POLL_INTERVAL_MS: '20' }, serviceConfig: pluginsConfig(['image_a']) });
    ({ key } = await s.createKey({ credits, rateLimitPerMinute: 100_000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });

  it('values just inside every range and enum are generated and charged per image', async () => {
    let spent = 0;
    for (const [model, input] of valid) {
      const r = await generate({ model, input });
      assert.equal(r.status, 200, `${model} ${JSON.stringify(input).slice(0, 120)}: ${r.text.slice(0, 300)}`);
      const n = Number(input.num_outputs ?? 1);
      assert.equal(r.json.images.length, n);
      assert.equal(r.json.creditUsage, PRICES[model]! * n);
      assert.equal(r.headers['x-credits-charged'], String(PRICES[model]! * n));
      spent += PRICES[model]! * n;
    }
    assert.deepEqual(await balance().then((b) => ({ credits: b.credits, reserved: b.reserved })), { credits: credits - spent, reserved: 0 });
  });

  it('a value just outside is a 400 naming the field, before anything is sent upstream or reserved', async () => {
    const before = { upstream: fake.requests.length, credits: (await balance()).credits };
    for (const [model, input, field] of invalid) {
      const r = await generate({ model, input });
      assert.equal(r.status, 400, `${model} ${JSON.stringify(input).slice(0, 120)}: ${r.text.slice(0, 300)}`);
      assert.equal(typeof r.json.error, 'string');
      assert.ok(r.json.error.includes(`'${field}'`), `${model} ${JSON.stringify(input).slice(0, 80)}: "${r.json.error}" names ${field}`);
    }
    assert.equal(fake.requests.length, before.upstream, 'nothing reached the provider');
    assert.equal((await balance()).credits, before.credits);
  });

  it('the body itself: unknown model, missing input, a non-boolean permanent and unknown fields are 400s', async () => {
    const cases: [unknown, string][] = [
      [{ model: 'img-ultra', input: P }, "'model'"],
      [{ model: 'img-fast' }, "'input'"],
      [{ model: 'img-fast', input: P, permanent: 'yes' }, "'permanent'"],
      [{ model: 'img-fast', input: P, extra: 1 }, "'extra'"],
      [{ input: P }, "'model'"],
    ];
    for (const [body, names] of cases) {
      const r = await generate(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(r.json.error.includes(names), `"${r.json.error}" names ${names}`);
    }
    // requestSource is accepted on every route and never validated against a list (spec §2.1).
    assert.equal((await generate({ model: 'img-fast', input: P, requestSource: 'AUTOMATION_A' })).status, 200);
  });

  it('the OpenAPI document shows the body as a oneOf on model, one schema per model with its aliases', async () => {
    const doc = (await s.call('GET', '/openapi/v1.json')).json;
    const body = doc.components.schemas.generate_ai_image_input;
    assert.equal(body.oneOf.length, 6);
    const models = body.oneOf.map((v: any) => v.properties.model.anyOf.map((m: any) => m.const));
    assert.deepEqual(models, [['img-fast', 'FLUX.1-schnell'], ['img-dev', 'FLUX.1-dev'], ['img-pro', 'FLUX.1-pro'], ['img-pro-v1.1', 'FLUX.1.1-pro'], ['img-edit-pro', 'FLUX.1-kontext-pro'], ['img-design', 'recraft-v3']]);
    const fast = body.oneOf[0].properties.input;
    assert.deepEqual(fast.properties.num_outputs, { description: 'Images to generate, 1–4.', minimum: 1, maximum: 4, default: 1, type: 'integer' });
    assert.equal(fast.additionalProperties, false);
  });
});
