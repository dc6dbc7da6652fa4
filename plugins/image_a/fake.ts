/**
 * A loopback fake of the image_a API (contracts §9, Replicate-style predictions) on the fake kit:
 * create with `Prefer: wait`, poll, cancel, problem+json errors, the upstream models' own input
 * schemas (`fake-models.ts`) and delivery URLs serving real PNG, JPEG and WebP bytes.
 *
 * A test picks a behaviour with a tag in the prompt (a tagged prediction is still running when the
 * create call's hold ends): `[slow]` (succeeds over polls), `[hang]` (never ends until cancelled),
 * `[nsfw]`, `[fail]`, `[partial]` (half the images), `[extra]` (one more than asked), `[html]` (a
 * web page as the output), `[422]`, `[429]`, `[poll429]` and `[poll500]` (its first poll so).
 */
import { randomUUID } from 'node:crypto';
import { SAMPLE_IMAGES, checked, fakeUpstream, recordings, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';
import type { Prediction } from './schemas.js';
import { UPSTREAM_MODELS } from './fake-models.js';

/** A prediction as the fake keeps it: the contract's fields, and how often it was polled. */
type FakePrediction = Prediction & { model: string; input: Record<string, any>; created_at: string; polls: number };
type State = { cancels: string[]; predictions: Map<string, FakePrediction> };
export type ImageAFake = FakeUpstream<State>;

const recorded = recordings(import.meta.url);
const TAGS = /\[(slow|hang|nsfw|fail|partial|extra|html|422|429|poll429|poll500)\]/g;
const tagsOf = (input: { prompt?: unknown }) => new Set([...String(input.prompt ?? '').matchAll(TAGS)].map((m) => m[1]));
const throttled = (seconds: number) => ({ status: 429, json: { detail: `Request was throttled. Your rate limit resets in ~${seconds}s.`, status: 429 }, headers: { 'retry-after': String(seconds) } });
/** The 422 naming a field: "- input.output_format: output_format must be one of …\n" (contracts §9 "Errors"). */
const invalid = (problem: string) => ({ status: 422, json: { title: 'Input validation failed', detail: `- ${problem}\n`, status: 422, invalid_fields: [{ type: 'invalid', field: problem.split(':')[0], description: problem }] } });
/** How a prediction tagged so ends instead of succeeding. */
const ENDINGS: Record<string, Partial<FakePrediction>> = {
  nsfw: { status: 'failed', error: 'All generated images contained NSFW content. Try running it again with a different prompt.' },
  fail: { status: 'failed', error: 'CUDA out of memory. Tried to allocate 2.00 GiB' },
};

const view = (base: string, p: FakePrediction) => ({ ...recorded('prediction', { ...p, base, metrics: p.status === 'succeeded' ? { predict_time: 0.9 } : {} }), ...(p.completed_at ? { completed_at: p.completed_at } : {}) });

function finish(base: string, p: FakePrediction) {
  const tags = tagsOf(p.input);
  p.completed_at = new Date().toISOString();
  const ending = [...tags].find((t) => ENDINGS[t!]);
  if (ending) return Object.assign(p, ENDINGS[ending]);
  const spec = UPSTREAM_MODELS[p.model]!;
  const format = tags.has('html') ? 'html' : String(p.input.output_format ?? spec.format);
  const asked = spec.list ? Number(p.input.num_outputs ?? 1) : 1;
  const n = tags.has('partial') ? Math.ceil(asked / 2) : tags.has('extra') ? asked + 1 : asked;
  const urls = Array.from({ length: n }, (_, i) => `${base}/delivery/${p.id}/out-${i}.${format}`);
  return Object.assign(p, { status: 'succeeded', output: spec.list ? urls : urls[0]! });
}

/** Creates a prediction of `model` (its body checked by the model's schema, as the API does). */
const create = (model: string): FakeRoute<State> =>
  checked({ body: UPSTREAM_MODELS[model]!.body }, ({ body, headers }, fake) => {
    const tags = tagsOf(body.input);
    if (tags.has('429')) return throttled(30);
    if (tags.has('422')) return invalid('input.prompt: prompt is too long for this model');
    const p: FakePrediction = { id: randomUUID().replace(/-/g, '').slice(0, 26), model, input: body.input, status: 'starting', output: null, error: null, polls: 0, created_at: new Date().toISOString() };
    fake.predictions.set(p.id, p);
    if (String(headers.prefer ?? '').startsWith('wait') && tags.size === 0) finish(fake.url, p);
    return { status: 201, json: view(fake.url, p), headers: { location: `${fake.url}/v1/predictions/${p.id}` } };
  }, invalid);

/** Each poll moves a prediction on: starting → processing → its end (`[hang]`: never). */
const poll: FakeRoute<State> = ({ params }, fake) => {
  const p = fake.predictions.get(params.id!);
  if (!p) return fake.error(404, 'Not found');
  const tags = tagsOf(p.input);
  if (++p.polls === 1 && tags.has('poll429')) return throttled(1);
  if (p.polls === 1 && tags.has('poll500')) return fake.error(500, 'Internal server error');
  if (p.status === 'starting') p.status = 'processing';
  else if (p.status === 'processing' && !tags.has('hang')) finish(fake.url, p);
  return { json: view(fake.url, p) };
};

const cancel: FakeRoute<State> = ({ params }, fake) => {
  const p = fake.predictions.get(params.id!);
  if (!p) return fake.error(404, 'Not found');
  fake.cancels.push(p.id);
  if (p.status === 'starting' || p.status === 'processing') Object.assign(p, { status: 'canceled', completed_at: new Date().toISOString() });
  return { json: view(fake.url, p) };
};

/** Delivery files by extension: the sample images, and a web page for an `[html]` output. */
const FILES: Record<string, { type: string; bytes: Buffer }> = { ...SAMPLE_IMAGES, html: { type: 'text/html', bytes: Buffer.from('<!doctype html><html><body>Not an image</body></html>') } };
const delivery: FakeRoute<State> = ({ params }) => {
  const file = FILES[/^out-\d+\.(\w+)$/.exec(params.file!)?.[1] ?? ''];
  return file ? { bytes: file.bytes, headers: { 'content-type': file.type } } : { status: 404 };
};

/** Starts the fake on 127.0.0.1 with a random port. */
export function startFake(opts: { apiKey?: string } = {}): Promise<ImageAFake> {
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'r8_fake_token',
    error: (status, detail) => ({ title: detail, detail, status }),
    unauthorized: { status: 401, json: { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 } },
    rateLimited: throttled(1),
    state: { cancels: [], predictions: new Map() },
    env: ({ url, apiKey }) => ({ IMAGE_A_BASE_URL: `${url}/v1`, IMAGE_A_API_KEY: apiKey }),
    // Delivery URLs are public CDN files: no key (contracts §9 "replicate.delivery").
    open: ['GET /delivery/:id/:file'],
    routes: {
      'GET /delivery/:id/:file': delivery,
      // One route per upstream model: an unknown one is the kit's 404.
      ...Object.fromEntries(Object.keys(UPSTREAM_MODELS).map((m) => [`POST /v1/models/${m}/predictions`, create(m)])),
      // A pinned version (`owner/name:<version>` settings) runs flux-schnell; the test checks the version it was sent.
      'POST /v1/predictions': create('black-forest-labs/flux-schnell'),
      'GET /v1/predictions/:id': poll,
      'POST /v1/predictions/:id/cancel': cancel,
    },
  });
}
