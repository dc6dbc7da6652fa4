/**
 * A loopback fake of the image_a API (contracts §9, Replicate-style predictions) on the fake kit:
 * bearer auth, `POST /v1/models/{owner}/{name}/predictions` (and `/v1/predictions` with a version)
 * → 201 honouring `Prefer: wait`, `GET /v1/predictions/{id}` polls, `POST …/cancel`, problem+json
 * errors (401, 404, 422 with `invalid_fields`, 429 with `Retry-After`), the upstream models' own
 * input schemas (`fake-models.ts`), and delivery URLs serving real PNG, JPEG and WebP bytes.
 *
 * A test picks a behaviour with a tag in the prompt: `[slow]` (starting → processing → succeeded
 * over polls), `[hang]` (never finishes until cancelled), `[nsfw]`, `[fail]`, `[canceled]`,
 * `[partial]` (half the images), `[extra]` (one more than asked), `[html]` (an output that is a web
 * page), `[422]`, `[429]`, `[poll429]`, `[poll500]`, `[garbage]` (a 201 that is not a prediction).
 */
import { randomUUID } from 'node:crypto';
import { SAMPLE_IMAGES, fakeUpstream, recordings, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';
import { UPSTREAM_MODELS, inputProblem } from './fake-models.js';

/** A pinned version the fake knows (`owner/name:<version>` settings), and the model it runs. */
export const FAKE_VERSION = { id: '5599ed30703defd1d160a25a63321b4dec97101d98b4674bcc56e41f62f35637', model: 'black-forest-labs/flux-schnell' };

/** A prediction as the fake keeps it. */
interface FakePrediction {
  id: string;
  model: string;
  input: Record<string, any>;
  status: string;
  output: string | string[] | null;
  error: string | null;
  polls: number;
  created_at: string;
  completed_at?: string;
}

/** Ids of predictions cancelled through the API, and every prediction by id. */
export type ImageAFake = FakeUpstream<{ cancels: string[]; predictions: Map<string, FakePrediction> }>;
type Route = FakeRoute<{ cancels: string[]; predictions: Map<string, FakePrediction> }>;

const recorded = recordings(import.meta.url);
const TAGS = /\[(slow|hang|nsfw|fail|canceled|partial|extra|html|422|429|poll429|poll500|garbage)\]/g;
const tagsOf = (prompt: unknown) => new Set([...String(prompt ?? '').matchAll(TAGS)].map((m) => m[1]));
const notFound = { status: 404, json: { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 } };
const throttled = (seconds: number) => ({ status: 429, json: { detail: `Request was throttled. Your rate limit resets in ~${seconds}s.`, status: 429 }, headers: { 'retry-after': String(seconds) } });
const invalid = (detail: string, invalid_fields: object[]) => ({ status: 422, json: { title: 'Input validation failed', detail, status: 422, invalid_fields } });
/** How a prediction tagged so ends instead of succeeding. */
const ENDINGS: Record<string, Partial<FakePrediction>> = {
  nsfw: { status: 'failed', error: 'All generated images contained NSFW content. Try running it again with a different prompt.' },
  fail: { status: 'failed', error: 'CUDA out of memory. Tried to allocate 2.00 GiB' },
  canceled: { status: 'canceled' },
};

const view = (base: string, p: FakePrediction) => ({ ...recorded('prediction', { ...p, base, metrics: p.status === 'succeeded' ? { predict_time: 0.9 } : {} }), ...(p.completed_at ? { completed_at: p.completed_at } : {}) });

function finish(base: string, p: FakePrediction) {
  const tags = tagsOf(p.input.prompt);
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

const create = (model: string | undefined): Route => ({ body, headers }, fake) => {
  if (!model && body?.version !== FAKE_VERSION.id) return fake.error(422, "The specified version does not exist (or perhaps you don't have permission to use it?)");
  model ??= FAKE_VERSION.model;
  if (!UPSTREAM_MODELS[model]) return notFound;
  if (!body || typeof body.input !== 'object') return invalid('- input: Invalid type. Expected: object\n', [{ type: 'required', field: 'input', description: 'input is required' }]);
  const tags = tagsOf(body.input.prompt);
  if (tags.has('429')) return throttled(30);
  if (tags.has('422')) return invalid('- input.prompt: prompt is too long for this model\n', [{ type: 'string_too_long', field: 'input.prompt', description: 'prompt is too long for this model' }]);
  const bad = inputProblem(model, body.input);
  if (bad) return invalid(bad.detail, bad.invalid_fields);
  if (tags.has('garbage')) return { status: 201, json: { hello: 'world' } };
  const p: FakePrediction = { id: randomUUID().replace(/-/g, '').slice(0, 26), model, input: body.input, status: 'starting', output: null, error: null, polls: 0, created_at: new Date().toISOString() };
  fake.predictions.set(p.id, p);
  // Prefer: wait — a quick model finishes within the hold; a slow one comes back unfinished.
  const slow = ['slow', 'hang', 'fail', 'canceled', 'poll429', 'poll500'].some((t) => tags.has(t));
  if (String(headers.prefer ?? '').startsWith('wait') && !slow) finish(fake.url, p);
  return { status: 201, json: view(fake.url, p), headers: { location: `${fake.url}/v1/predictions/${p.id}` } };
};

/** Starts the fake on 127.0.0.1 with a random port. */
export function startFake(opts: { apiKey?: string } = {}): Promise<ImageAFake> {
  const polled = new Set<string>();
  const poll: Route = ({ params }, fake) => {
    const p = fake.predictions.get(params.id!);
    if (!p) return notFound;
    const tags = tagsOf(p.input.prompt);
    p.polls += 1;
    if (!polled.has(p.id) && (tags.has('poll429') || tags.has('poll500'))) {
      polled.add(p.id);
      return tags.has('poll429') ? throttled(1) : fake.error(500, 'Internal server error');
    }
    if (p.status === 'starting') p.status = 'processing';
    else if (p.status === 'processing' && !tags.has('hang')) finish(fake.url, p);
    return { json: view(fake.url, p) };
  };
  const cancel: Route = ({ params }, fake) => {
    const p = fake.predictions.get(params.id!);
    if (!p) return notFound;
    fake.cancels.push(p.id);
    if (!['succeeded', 'failed', 'canceled'].includes(p.status)) Object.assign(p, { status: 'canceled', completed_at: new Date().toISOString() });
    return { json: view(fake.url, p) };
  };
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'r8_fake_token',
    error: (status, detail) => ({ title: detail, detail, status }),
    unauthorized: { status: 401, json: { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 } },
    rateLimited: throttled(1),
    state: { cancels: [] as string[], predictions: new Map<string, FakePrediction>() },
    env: ({ url, apiKey }) => ({ IMAGE_A_BASE_URL: `${url}/v1`, IMAGE_A_API_KEY: apiKey }),
    // Delivery URLs are public CDN files: no key (contracts §9 "replicate.delivery").
    open: ['GET /delivery/:id/:file'],
    routes: {
      'GET /delivery/:id/:file': ({ params }) => {
        const ext = /^out-\d+\.(\w+)$/.exec(params.file!)?.[1] ?? '';
        if (ext === 'html') return { text: '<!doctype html><html><body>Not an image</body></html>', headers: { 'content-type': 'text/html' } };
        const img = SAMPLE_IMAGES[ext as keyof typeof SAMPLE_IMAGES];
        return img ? { bytes: img.bytes, headers: { 'content-type': img.type } } : { status: 404 };
      },
      'POST /v1/models/:owner/:name/predictions': (req, fake) => create(`${req.params.owner}/${req.params.name}`)(req, fake),
      'POST /v1/predictions': create(undefined),
      'GET /v1/predictions/:id': poll,
      'POST /v1/predictions/:id/cancel': cancel,
    },
  });
}
