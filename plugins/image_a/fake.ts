/**
 * A loopback fake of the image_a API (contracts §9, Replicate-style predictions) for tests: bearer
 * auth, `POST /v1/models/{owner}/{name}/predictions` (and `/v1/predictions` with a version) → 201
 * honouring `Prefer: wait`, `GET /v1/predictions/{id}` polls, `POST …/cancel`, problem+json
 * errors (401, 404, 422 with `invalid_fields`, 429 with `Retry-After`), the upstream models' own
 * input schemas, and delivery URLs serving real PNG, JPEG and WebP bytes.
 *
 * A test picks a behaviour with a tag in the prompt: `[slow]` (starting → processing →
 * succeeded over polls), `[hang]` (never finishes until cancelled), `[nsfw]`, `[fail]`,
 * `[canceled]`, `[partial]` (half the images), `[extra]` (one image more than asked), `[html]` (an output that is a web page), `[422]`,
 * `[429]`, `[poll429]`, `[poll500]`, `[garbage]` (a 201 that is not a prediction).
 */
import { randomUUID } from 'node:crypto';
import { fakeUpstream, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';
import { UPSTREAM_MODELS, inputProblem } from './fake-models.js';

/** 8×8 images made with ffmpeg: a real PNG, JPEG and WebP for each output format. */
export const FAKE_IMAGES: Record<string, { type: string; bytes: Buffer }> = {
  png: { type: 'image/png', bytes: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAACXBIWXMAAAABAAAAAQBPJcTWAAAAEklEQVR4nGP4y8CAFWEXHbQSAPZwP0G2GkFNAAAAAElFTkSuQmCC', 'base64') },
  jpg: { type: 'image/jpeg', bytes: Buffer.from('/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgKCgsKCw0NDQ0NDRAPEBAQEBAQEBAQEBASEhIVFRUSEhIQEBISFBQVFRcXFxUVFRUXFxkZGR4eHBwjIyQrKzP/xABLAAEBAAAAAAAAAAAAAAAAAAAABgEBAAAAAAAAAAAAAAAAAAAABhABAAAAAAAAAAAAAAAAAAAAABEBAAAAAAAAAAAAAAAAAAAAAP/AABEIAAgACAMBIgACEQADEQD/2gAMAwEAAhEDEQA/AIsAVCX/2Q==', 'base64') },
  webp: { type: 'image/webp', bytes: Buffer.from('UklGRhwAAABXRUJQVlA4TA8AAAAvB8ABAAcQ0f/+ByKi/wEA', 'base64') },
};

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

interface State {
  /** Ids of predictions cancelled through the API. */
  cancels: string[];
  predictions: Map<string, FakePrediction>;
}

/** A running fake. */
export type ImageAFake = FakeUpstream<State>;
type Route = FakeRoute<State>;

const TAGS = /\[(slow|hang|nsfw|fail|canceled|partial|extra|html|422|429|poll429|poll500|garbage)\]/g;
const tagsOf = (prompt: unknown) => new Set([...String(prompt ?? '').matchAll(TAGS)].map((m) => m[1]));
const notFound = { status: 404, json: { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 } };
const throttled = (seconds: number) => ({ status: 429, json: { detail: `Request was throttled. Your rate limit resets in ~${seconds}s.`, status: 429 }, headers: { 'retry-after': String(seconds) } });

/** Starts the fake on 127.0.0.1 with a random port. */
export function startImageAFake(opts: { apiKey?: string } = {}): Promise<ImageAFake> {
  const polled = new Set<string>();
  const view = (base: string, p: FakePrediction) => ({
    id: p.id, model: p.model, version: 'hidden', input: p.input, output: p.output, error: p.error, logs: '', status: p.status, source: 'api', data_removed: false,
    created_at: p.created_at, ...(p.completed_at ? { completed_at: p.completed_at } : {}), metrics: p.status === 'succeeded' ? { predict_time: 0.9 } : {},
    urls: { get: `${base}/v1/predictions/${p.id}`, cancel: `${base}/v1/predictions/${p.id}/cancel`, web: `${base}/p/${p.id}` },
  });
  const finish = (base: string, p: FakePrediction) => {
    const tags = tagsOf(p.input.prompt);
    p.completed_at = new Date().toISOString();
    if (tags.has('nsfw')) return Object.assign(p, { status: 'failed', error: 'All generated images contained NSFW content. Try running it again with a different prompt.' });
    if (tags.has('fail')) return Object.assign(p, { status: 'failed', error: 'CUDA out of memory. Tried to allocate 2.00 GiB' });
    if (tags.has('canceled')) return Object.assign(p, { status: 'canceled' });
    const spec = UPSTREAM_MODELS[p.model]!;
    const format = tags.has('html') ? 'html' : String(p.input.output_format ?? spec.format);
    const asked = spec.list ? Number(p.input.num_outputs ?? 1) : 1;
    const n = tags.has('partial') ? Math.ceil(asked / 2) : tags.has('extra') ? asked + 1 : asked;
    const urls = Array.from({ length: n }, (_, i) => `${base}/delivery/${p.id}/out-${i}.${format}`);
    return Object.assign(p, { status: 'succeeded', output: spec.list ? urls : urls[0]! });
  };
  const create = (model: string | undefined): Route => ({ body, headers }, fake) => {
    if (!model) {
      if (body?.version !== FAKE_VERSION.id) return fake.error(422, "The specified version does not exist (or perhaps you don't have permission to use it?)");
      model = FAKE_VERSION.model;
    }
    if (!UPSTREAM_MODELS[model]) return notFound;
    if (!body || typeof body.input !== 'object') return { status: 422, json: { title: 'Input validation failed', detail: '- input: Invalid type. Expected: object\n', status: 422, invalid_fields: [{ type: 'required', field: 'input', description: 'input is required' }] } };
    const tags = tagsOf(body.input.prompt);
    if (tags.has('429')) return throttled(30);
    const bad = tags.has('422') ? { detail: '- input.prompt: prompt is too long for this model\n', invalid_fields: [{ type: 'string_too_long', field: 'input.prompt', description: 'prompt is too long for this model' }] } : inputProblem(model, body.input);
    if (bad) return { status: 422, json: { title: 'Input validation failed', status: 422, ...bad } };
    if (tags.has('garbage')) return { status: 201, json: { hello: 'world' } };
    const p: FakePrediction = { id: randomUUID().replace(/-/g, '').slice(0, 26), model, input: body.input, status: 'starting', output: null, error: null, polls: 0, created_at: new Date().toISOString() };
    fake.predictions.set(p.id, p);
    // Prefer: wait — a quick model finishes within the hold; a slow one comes back unfinished.
    const slow = ['slow', 'hang', 'fail', 'canceled', 'poll429', 'poll500'].some((t) => tags.has(t));
    if (String(headers.prefer ?? '').startsWith('wait') && !slow) finish(fake.url, p);
    return { status: 201, json: view(fake.url, p), headers: { location: `${fake.url}/v1/predictions/${p.id}` } };
  };
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
    state: { cancels: [], predictions: new Map() } as State,
    env: ({ url, apiKey }) => ({ IMAGE_A_BASE_URL: `${url}/v1`, IMAGE_A_API_KEY: apiKey }),
    // Delivery URLs are public CDN files: no key (contracts §9 "replicate.delivery").
    open: ['GET /delivery/:id/:file'],
    routes: {
      'GET /delivery/:id/:file': ({ params }) => {
        const ext = /^out-\d+\.(\w+)$/.exec(params.file!)?.[1] ?? '';
        if (ext === 'html') return { text: '<!doctype html><html><body>Not an image</body></html>', headers: { 'content-type': 'text/html' } };
        const img = FAKE_IMAGES[ext];
        return img ? { bytes: img.bytes, headers: { 'content-type': img.type } } : { status: 404 };
      },
      'POST /v1/models/:owner/:name/predictions': (req, fake) => create(`${req.params.owner}/${req.params.name}`)(req, fake),
      'POST /v1/predictions': create(undefined),
      'GET /v1/predictions/:id': poll,
      'POST /v1/predictions/:id/cancel': cancel,
    },
  });
}

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startImageAFake;
