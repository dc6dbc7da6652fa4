/**
 * The fake kit (issue 29): a provider author declares a loopback fake of the upstream contract
 * (routes, how the key travels, the provider's error body) instead of writing an HTTP server, and
 * every fake gets the same failure modes, switchable per test, and a request log. The provider
 * fault suite (`fault-suite.ts`) drives those modes to prove the catalogue's error mapping.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveLoopback } from './loopback.js';
import { readBody } from './fake-http.js';
import { matchPath, parseRoute, requestMatcher, type FakeAnswer, type FakeRequest, type RoutePattern } from './fake-routes.js';

/**
 * How the fake finds the key: a header (with a prefix such as `Bearer `), a query parameter, HTTP
 * Basic with this login and the key as password, a check of its own, or none.
 */
export type FakeAuth = { header: string; prefix?: string } | { query: string } | { basic: string } | ((req: FakeRequest, apiKey: string) => boolean) | 'none';

/** A route: the request in, the answer out (`fake` is the running fake, with its `state`). */
export type FakeRoute<S extends object> = (req: FakeRequest, fake: FakeUpstream<S>) => FakeAnswer | Promise<FakeAnswer>;

/** What a provider's fake declares. */
export interface FakeUpstreamSpec<S extends object = {}> {
  /** The key the fake accepts; default `test-key`. */
  apiKey?: string;
  /** Where the key travels; several ways = any of them. Default `Authorization: Bearer <key>`. */
  auth?: FakeAuth | FakeAuth[];
  /** The provider's error body for a status and message; a string is sent as text/plain. Default `{ error: message }`. */
  error?: (status: number, message: string) => unknown;
  /** The provider's answer to a wrong or missing key; default `error(401, 'Unauthorized')`. */
  unauthorized?: FakeAnswer;
  /** Its rate-limit answer; default 429 with `Retry-After: 1`. */
  rateLimited?: FakeAnswer;
  /** Its "your account has no credits" answer; default 402. */
  outOfCredits?: FakeAnswer;
  /** A 200 that is not the contract's JSON; default an HTML page. */
  garbage?: FakeAnswer;
  /** Extra switches of this fake (e.g. a job mode), restored by `reset()`; plain data only. */
  state?: S;
  /** `'POST /v2/crawl/:id'` → answer. An unknown route answers `error(404, 'Not found')`. */
  routes: Record<string, FakeRoute<S>>;
  /** Route keys answered without a key, never failed by a mode and left out of the request log (e.g. public file downloads). */
  open?: string[];
  /** The settings that point the plugin at this fake, e.g. `{ ANSWER_A_BASE_URL: url, ANSWER_A_API_KEY: apiKey }`. */
  env(fake: { url: string; apiKey: string }): Record<string, string>;
  /** How long `drip` waits between bytes; default 200 ms. */
  dripMs?: number;
}

/** A running fake: its address, settings, request log and failure switches. */
export type FakeUpstream<S extends object = {}> = S & {
  url: string;
  apiKey: string;
  /** What the plugin (or a server under test) needs to use the fake. */
  env: Record<string, string>;
  /** Every API request received (not those of `open` routes), oldest first. */
  requests: FakeRequest[];
  /** The logged requests that match `'POST'` (a method) or `'GET /v1/items/:id'` (a route key; `*` for any method), oldest first. */
  sent(match: string): FakeRequest[];
  /** The last logged request (that matches `match`, as in `sent`); throws when there is none, so a test reads it without `!`. */
  last(match?: string): FakeRequest;
  /** From now on every call answers `status` with `body` (default the provider's error body). */
  failWith(status: number, body?: unknown): void;
  /** From now on every call is rate-limited (the provider's 429). */
  rateLimit(): void;
  /** From now on every call says the provider account has no credits. */
  outOfCredits(): void;
  /** From now on the configured key is refused (the provider's own 401 shape). */
  rejectKey(): void;
  /** From now on every call answers 200 with a body that is not the contract's JSON. */
  garbage(): void;
  /** From now on no call is ever answered. */
  hang(): void;
  /** From now on every answer comes one byte at a time, too slowly to finish. */
  drip(): void;
  /**
   * From now on the JSON of every route's answer passes through `change` first: a test varies one
   * part of the contract's answer (a field left out, a wrong type) and the rest stays genuine.
   */
  reshape(change: (json: any) => unknown): void;
  /** Back to normal answers, and `state` back to what was declared (the request log stays). */
  reset(): void;
  /** The provider's error answer for `status` and `message`, for routes to return. */
  error(status: number, message: string): FakeAnswer;
  close(): Promise<void>;
};

type Mode = { kind: 'ok' } | { kind: 'answer'; answer: FakeAnswer } | { kind: 'rejectKey' } | { kind: 'hang' } | { kind: 'drip' } | { kind: 'reshape'; change: (json: any) => unknown };

const GARBAGE: FakeAnswer = { status: 200, text: '<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'content-type': 'text/html' } };

function headersOf(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));
}

function keyMatches(auth: FakeAuth, req: FakeRequest, apiKey: string): boolean {
  if (auth === 'none') return true;
  if (typeof auth === 'function') return auth(req, apiKey);
  if ('query' in auth) return req.query[auth.query] === apiKey;
  if ('basic' in auth) return req.headers.authorization === `Basic ${Buffer.from(`${auth.basic}:${apiKey}`).toString('base64')}`;
  return req.headers[auth.header.toLowerCase()] === `${auth.prefix ?? ''}${apiKey}`;
}

/** The status, headers and bytes of an answer. */
function encode(answer: FakeAnswer): { status: number; headers: Record<string, string>; bytes: Buffer } {
  const headers: Record<string, string> = {};
  let bytes: Buffer = Buffer.alloc(0);
  if (answer.json !== undefined) {
    headers['content-type'] = 'application/json';
    bytes = Buffer.from(JSON.stringify(answer.json));
  } else if (answer.text !== undefined) {
    headers['content-type'] = 'text/plain; charset=utf-8';
    bytes = Buffer.from(answer.text);
  } else if (answer.bytes) bytes = Buffer.isBuffer(answer.bytes) ? answer.bytes : Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength);
  Object.assign(headers, answer.headers ?? {}, { 'content-length': String(bytes.length) });
  return { status: answer.status ?? 200, headers, bytes };
}

/** Starts a fake of a provider's contract on 127.0.0.1 (port 0). */
export async function fakeUpstream<S extends object = {}>(spec: FakeUpstreamSpec<S>): Promise<FakeUpstream<S>> {
  const apiKey = spec.apiKey ?? 'test-key';
  const auths = [spec.auth ?? { header: 'authorization', prefix: 'Bearer ' }].flat();
  const errorAnswer = (status: number, message: string): FakeAnswer => {
    const body = spec.error ? spec.error(status, message) : { error: message };
    return typeof body === 'string' ? { status, text: body } : { status, json: body };
  };
  const routes: [RoutePattern, FakeRoute<S>, boolean][] = Object.entries(spec.routes).map(([key, route]) => [parseRoute(key), route, spec.open?.includes(key) ?? false]);
  const initial = structuredClone(spec.state ?? ({} as S));
  const timers = new Set<NodeJS.Timeout>();
  let mode: Mode = { kind: 'ok' };

  const send = (res: ServerResponse, answer: FakeAnswer, slowly = false) => {
    const { status, headers, bytes } = encode(answer);
    res.writeHead(status, headers);
    if (!slowly) return void res.end(bytes);
    let at = 0;
    const tick = setInterval(() => {
      if (res.destroyed || at >= bytes.length) {
        clearInterval(tick);
        timers.delete(tick);
        return void (res.destroyed || res.end());
      }
      res.write(bytes.subarray(at, ++at));
    }, spec.dripMs ?? 200);
    timers.add(tick);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const { raw, json } = await readBody(req);
    const u = new URL(req.url ?? '/', 'http://fake');
    const method = (req.method ?? 'GET').toUpperCase();
    let params: Record<string, string> | undefined;
    const found = routes.find(([p]) => (p.method === '*' || p.method === method) && (params = matchPath(p, u.pathname)) !== undefined);
    const request: FakeRequest = { method, path: u.pathname, url: u.pathname + u.search, params: params ?? {}, query: Object.fromEntries(u.searchParams), headers: headersOf(req), body: json, raw, at: Date.now() };
    if (found?.[2]) return send(res, await found[1](request, fake));
    fake.requests.push(request);
    const authorised = mode.kind !== 'rejectKey' && auths.some((a) => keyMatches(a, request, apiKey));
    if (!authorised) return send(res, spec.unauthorized ?? errorAnswer(401, 'Unauthorized'));
    if (mode.kind === 'hang') return; // held open until the caller gives up or the fake closes
    if (mode.kind === 'answer') return send(res, mode.answer);
    const answer = found ? await found[1](request, fake) : errorAnswer(404, 'Not found');
    // A copy: a route may answer a shared constant, which a reshape must not change for later tests.
    const reshaped = mode.kind === 'reshape' && found && answer.json !== undefined ? { ...answer, json: mode.change(structuredClone(answer.json)) } : answer;
    send(res, reshaped, mode.kind === 'drip');
  };

  const server = await serveLoopback((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, { status: 500, text: `fake upstream failed: ${err instanceof Error ? err.message : String(err)}` });
      else res.destroy();
    });
  });
  const fake = Object.assign(structuredClone(initial), {
    url: server.url,
    apiKey,
    env: spec.env({ url: server.url, apiKey }),
    requests: [] as FakeRequest[],
    sent: (match: string) => fake.requests.filter(requestMatcher(match)),
    last(match?: string) {
      const found = match === undefined ? fake.requests.at(-1) : fake.sent(match).at(-1);
      if (!found) throw new Error(`the fake received no request${match ? ` matching '${match}'` : ''}`);
      return found;
    },
    failWith: (status: number, body?: unknown) => void (mode = { kind: 'answer', answer: body === undefined ? errorAnswer(status, status >= 500 ? 'Internal server error' : `HTTP ${status}`) : typeof body === 'string' ? { status, text: body } : { status, json: body } }),
    rateLimit: () => void (mode = { kind: 'answer', answer: spec.rateLimited ?? { ...errorAnswer(429, 'Too many requests'), headers: { 'retry-after': '1' } } }),
    outOfCredits: () => void (mode = { kind: 'answer', answer: spec.outOfCredits ?? errorAnswer(402, 'Payment required') }),
    rejectKey: () => void (mode = { kind: 'rejectKey' }),
    garbage: () => void (mode = { kind: 'answer', answer: spec.garbage ?? GARBAGE }),
    hang: () => void (mode = { kind: 'hang' }),
    drip: () => void (mode = { kind: 'drip' }),
    reshape: (change: (json: any) => unknown) => void (mode = { kind: 'reshape', change }),
    reset() {
      mode = { kind: 'ok' };
      Object.assign(fake, structuredClone(initial));
    },
    error: errorAnswer,
    async close() {
      for (const t of timers) clearInterval(t);
      timers.clear();
      await server.close();
    },
  }) as FakeUpstream<S>;
  return fake;
}
