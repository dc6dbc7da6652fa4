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
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { serveLoopback } from '../../core/sdk.js';
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

/** A running fake. */
export interface ImageAFake {
  url: string;
  apiKey: string;
  /** `IMAGE_A_BASE_URL` and `IMAGE_A_API_KEY` pointing at the fake. */
  env: Record<string, string>;
  /** Every API call: method, path, the `Prefer` header, the JSON body, when it arrived and the status answered. */
  requests: { method: string; path: string; prefer?: string; body: any; at: number; status?: number }[];
  /** Ids of predictions cancelled through the API. */
  cancels: string[];
  predictions: Map<string, FakePrediction>;
  close(): Promise<void>;
}

const TAGS = /\[(slow|hang|nsfw|fail|canceled|partial|extra|html|422|429|poll429|poll500|garbage)\]/g;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  const problem = status >= 400 && status !== 429;
  res.writeHead(status, { 'content-type': problem ? 'application/problem+json' : 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts the fake on 127.0.0.1 with a random port. */
export async function startImageAFake(opts: { apiKey?: string } = {}): Promise<ImageAFake> {
  const apiKey = opts.apiKey ?? 'r8_fake_token';
  const fake: ImageAFake = { url: '', apiKey, env: {}, requests: [], cancels: [], predictions: new Map(), close: async () => undefined };
  const polled = new Set<string>();

  const view = (p: FakePrediction) => ({
    id: p.id, model: p.model, version: 'hidden', input: p.input, output: p.output, error: p.error, logs: '', status: p.status, source: 'api', data_removed: false,
    created_at: p.created_at, ...(p.completed_at ? { completed_at: p.completed_at } : {}), metrics: p.status === 'succeeded' ? { predict_time: 0.9 } : {},
    urls: { get: `${fake.url}/v1/predictions/${p.id}`, cancel: `${fake.url}/v1/predictions/${p.id}/cancel`, web: `${fake.url}/p/${p.id}` },
  });

  const finish = (p: FakePrediction) => {
    const tags = new Set([...String(p.input.prompt).matchAll(TAGS)].map((m) => m[1]));
    p.completed_at = new Date().toISOString();
    if (tags.has('nsfw')) return Object.assign(p, { status: 'failed', error: 'All generated images contained NSFW content. Try running it again with a different prompt.' });
    if (tags.has('fail')) return Object.assign(p, { status: 'failed', error: 'CUDA out of memory. Tried to allocate 2.00 GiB' });
    if (tags.has('canceled')) return Object.assign(p, { status: 'canceled' });
    const spec = UPSTREAM_MODELS[p.model]!;
    const format = tags.has('html') ? 'html' : String(p.input.output_format ?? spec.format);
    const asked = spec.list ? Number(p.input.num_outputs ?? 1) : 1;
    const n = tags.has('partial') ? Math.ceil(asked / 2) : tags.has('extra') ? asked + 1 : asked;
    const urls = Array.from({ length: n }, (_, i) => `${fake.url}/delivery/${p.id}/out-${i}.${format}`);
    return Object.assign(p, { status: 'succeeded', output: spec.list ? urls : urls[0]! });
  };

  const server = await serveLoopback(async (req, res) => {
    const url = new URL(req.url!, 'http://fake');
    const path = url.pathname;
    // Delivery URLs are public CDN files: no key (contracts §9 "replicate.delivery").
    const file = /^\/delivery\/[^/]+\/out-\d+\.(\w+)$/.exec(path);
    if (file && req.method === 'GET') {
      if (file[1] === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>Not an image</body></html>');
      const img = FAKE_IMAGES[file[1]!];
      if (!img) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': img.type, 'content-length': String(img.bytes.length) }).end(img.bytes);
    }
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const seen = { method: req.method!, path, prefer: req.headers.prefer as string | undefined, body, at: Date.now(), status: undefined as number | undefined };
    fake.requests.push(seen);
    res.once('finish', () => (seen.status = res.statusCode));
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });

    const create = /^\/v1\/models\/([^/]+\/[^/]+)\/predictions$/.exec(path);
    if (req.method === 'POST' && (create || path === '/v1/predictions')) {
      let model = create?.[1];
      if (!create) {
        if (body?.version !== FAKE_VERSION.id) return send(res, 422, { title: 'Invalid version or not permitted', detail: 'The specified version does not exist (or perhaps you don\'t have permission to use it?)', status: 422 });
        model = FAKE_VERSION.model;
      }
      if (!UPSTREAM_MODELS[model!]) return send(res, 404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
      if (!body || typeof body.input !== 'object') return send(res, 422, { title: 'Input validation failed', detail: '- input: Invalid type. Expected: object\n', status: 422, invalid_fields: [{ type: 'required', field: 'input', description: 'input is required' }] });
      const tags = new Set([...String(body.input.prompt ?? '').matchAll(TAGS)].map((m) => m[1]));
      if (tags.has('429')) return send(res, 429, { detail: 'Request was throttled. Your rate limit resets in ~30s.', status: 429 }, { 'retry-after': '30' });
      const bad = tags.has('422')
        ? { detail: '- input.prompt: prompt is too long for this model\n', invalid_fields: [{ type: 'string_too_long', field: 'input.prompt', description: 'prompt is too long for this model' }] }
        : inputProblem(model!, body.input);
      if (bad) return send(res, 422, { title: 'Input validation failed', status: 422, ...bad });
      if (tags.has('garbage')) return send(res, 201, { hello: 'world' });
      const p: FakePrediction = { id: randomUUID().replace(/-/g, '').slice(0, 26), model: model!, input: body.input, status: 'starting', output: null, error: null, polls: 0, created_at: new Date().toISOString() };
      fake.predictions.set(p.id, p);
      // Prefer: wait — a quick model finishes within the hold; a slow one comes back unfinished.
      const slow = ['slow', 'hang', 'fail', 'canceled', 'poll429', 'poll500'].some((t) => tags.has(t));
      if (String(req.headers.prefer ?? '').startsWith('wait') && !slow) finish(p);
      return send(res, 201, view(p), { location: `${fake.url}/v1/predictions/${p.id}` });
    }

    const one = /^\/v1\/predictions\/([^/]+)(\/cancel)?$/.exec(path);
    const p = one && fake.predictions.get(one[1]!);
    if (!p) return send(res, 404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
    if (one[2] && req.method === 'POST') {
      fake.cancels.push(p.id);
      if (!['succeeded', 'failed', 'canceled'].includes(p.status)) Object.assign(p, { status: 'canceled', completed_at: new Date().toISOString() });
      return send(res, 200, view(p));
    }
    if (req.method !== 'GET' || one[2]) return send(res, 405, { title: 'Method not allowed', status: 405 });
    const tags = new Set([...String(p.input.prompt).matchAll(TAGS)].map((m) => m[1]));
    p.polls += 1;
    if (!polled.has(p.id) && (tags.has('poll429') || tags.has('poll500'))) {
      polled.add(p.id);
      if (tags.has('poll429')) return send(res, 429, { detail: 'Request was throttled. Your rate limit resets in ~1s.', status: 429 }, { 'retry-after': '1' });
      return send(res, 500, { title: 'Internal server error', status: 500 });
    }
    if (p.status === 'starting') p.status = 'processing';
    else if (p.status === 'processing' && !tags.has('hang')) finish(p);
    return send(res, 200, view(p));
  });
  fake.url = server.url;
  fake.env = { IMAGE_A_BASE_URL: `${fake.url}/v1`, IMAGE_A_API_KEY: apiKey };
  fake.close = () => server.close();
  return fake;
}

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startImageAFake;
