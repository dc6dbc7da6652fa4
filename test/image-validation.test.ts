/**
 * `POST /api/v1/generate-ai-image` input validation through the real server (spec §4.7, issue 16):
 * every boundary of every model's ranges and enums. A value just inside passes and is generated
 * (against the image_a fake); one just outside is a 400 naming the field, with nothing sent
 * upstream and nothing reserved or charged.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startFake as startImageAFake, type ImageAFake } from '../plugins/image_a/fake.js';

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
