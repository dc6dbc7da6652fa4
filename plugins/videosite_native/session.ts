/**
 * The site's internal JSON API (`/youtubei/v1/player|next|browse|search|navigation/resolve_url`)
 * and caption documents, reached through youtubei.js's session (client context, headers, visitor
 * data made locally with no network call) with OUR fetch underneath (issue 12):
 * - every URL the library or this plugin asks for, on any of the site's hosts, goes to
 *   `VIDEOSITE_NATIVE_BASE_URL` with path and query kept (a replaying server can stand in);
 * - through `ctx.engines.http` (timeouts, size cap, the call's abort signal), or through
 *   `VIDEOSITE_NATIVE_PROXY_URL` when the operator set one;
 * - the site blocking this server (HTTP 429, the "unusual traffic" page) becomes spec §7.1's 503
 *   `Rate limit exceeded` plus a log line telling the operator to set a proxy; other failures 502.
 * One session serves concurrent calls: each call talks through an HTTP client of that session
 * (youtubei.js's own: context, headers) whose fetch is bound to the call's context. Not an
 * AsyncLocalStorage: this plugin was the only user of one in the service, and one switches on
 * promise hooks for every promise of the whole process from the first video-site call on.
 */
import type { HTTPClient, Innertube, Types } from 'youtubei.js';
import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { UpstreamError, UpstreamRateLimitError, type RunContext } from '../../core/sdk.js';

/** The plugin's settings as they arrive in `ctx.config`. */
export interface NativeConfig {
  baseUrl: string;
  proxyUrl?: string;
  timeoutMs: number;
}

/** What `setup` builds: one session shared by every call. */
export interface NativeState {
  readonly session: Promise<Innertube>;
  proxy?: ProxyAgent;
}

/** The public name in messages (spec §7.1: `Received invalid data structure from videosite service.`). */
export const SERVICE = 'videosite';
const MAX_BYTES = 20 * 1024 * 1024;

/** The configured base split once (origin + path prefix), not re-parsed for every request. */
let baseCache: { base: string; head: string } | undefined;

/** `url` on the configured base: scheme, host and port replaced, path and query kept. */
export function onBase(url: string, base: string): string {
  const u = new URL(url);
  if (baseCache?.base !== base) {
    const b = new URL(base);
    baseCache = { base, head: `${b.origin}${b.pathname.replace(/\/+$/, '')}` };
  }
  return `${baseCache.head}${u.pathname}${u.search}`;
}

/** The site answered with its captcha / "unusual traffic" page instead of data. */
function isBlockPage(status: number, contentType: string, body: Uint8Array): boolean {
  if (status === 429) return true;
  if (!/text\/html/i.test(contentType)) return false;
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, 64 * 1024)).toString('utf8');
  return /unusual traffic|g-recaptcha|\/sorry\/index|detected unusual/i.test(head);
}

/** spec §7.1 503, with the operator's hint in the log (issue 12: "tell the operator to set a proxy"). */
export function blocked(ctx: RunContext<NativeState>, why: string): UpstreamRateLimitError {
  ctx.log.warn({ provider: ctx.provider, why }, 'the video site is blocking or rate-limiting this server: set VIDEOSITE_NATIVE_PROXY_URL to route its requests through a proxy');
  return new UpstreamRateLimitError({ cause: new Error(why) });
}

/** What a site request came back with: status, content type and the (decoded) body bytes. */
interface Received {
  status: number;
  contentType: string;
  body: Uint8Array;
}

async function send(ctx: RunContext<NativeState>, url: string, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined): Promise<Received> {
  const cfg = ctx.config as unknown as NativeConfig;
  const timeoutMs = cfg.timeoutMs;
  if (ctx.state.proxy) {
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
    // Bytes, not a string: fetch would add `content-type: text/plain` to a string body without one.
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    const res = await undiciFetch(url, { method, headers, body: payload, dispatcher: ctx.state.proxy, signal, redirect: 'follow' });
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > MAX_BYTES) throw new UpstreamError(`Failed to retrieve data from ${SERVICE} service.`, { cause: new Error('response too large') });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: bytes };
  }
  const res = await ctx.engines.http.request({ url, method, headers, body, guard: false, timeoutMs, maxBytes: MAX_BYTES, maxRedirects: 3, signal: ctx.signal });
  return { status: res.status, contentType: res.headers['content-type'] ?? '', body: res.body };
}

const utf8 = new TextDecoder();

/**
 * The answer {@link siteFetch} hands back: the parts of a WHATWG `Response` that youtubei.js's
 * HTTP client (`ok`, `status`, `url`, `text()` on failure, `json()`) and this plugin read, served
 * straight from the bytes already received. A real `Response` copies the body into a web stream
 * and reads it back before decoding: on the 197 KB recorded player answer, `json()` took 1.9 ms
 * against 0.9 ms for decoding and parsing alone. Decoding is `Response`'s: UTF-8, BOM dropped,
 * invalid sequences replaced; `json()` of a bad body throws the same SyntaxError.
 */
class SiteResponse {
  readonly ok: boolean;
  readonly statusText = '';
  readonly redirected = false;
  readonly type = 'basic';
  readonly #contentType: string;
  readonly #body: Uint8Array | null;
  constructor(
    readonly status: number,
    readonly url: string,
    contentType: string,
    body: Uint8Array | null,
  ) {
    this.ok = status >= 200 && status < 300;
    this.#contentType = contentType;
    this.#body = body;
  }
  get headers(): Headers {
    return new Headers({ 'content-type': this.#contentType });
  }
  async text(): Promise<string> {
    return this.#body ? utf8.decode(this.#body) : '';
  }
  async json(): Promise<unknown> {
    return JSON.parse(this.#body ? utf8.decode(this.#body) : '');
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.#body;
    return b ? (b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer) : new ArrayBuffer(0);
  }
}

/** Request headers as the engine takes them (lower-case names), cookies and length left out; a `Headers` is read in place, not copied. */
function headersOf(h: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  (h instanceof Headers ? h : new Headers(h)).forEach((v, k) => {
    if (k !== 'cookie' && k !== 'content-length') out[k] = v;
  });
  return out;
}

/** The fetch of one call, handed to youtubei.js (and used for caption documents): see the file comment. */
async function siteFetch(ctx: RunContext<NativeState>, input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  // youtubei.js calls with a Request it built plus an init holding the body and headers; this
  // plugin calls with a URL string. Neither needs a Request built or its body re-read.
  const req = input instanceof Request ? input : typeof input === 'string' || input instanceof URL ? undefined : new Request(input, init);
  const url = onBase(req ? req.url : String(input), (ctx.config as unknown as NativeConfig).baseUrl);
  const method = req ? req.method : (init?.method ?? 'GET').toUpperCase();
  const headers = headersOf(init?.headers ?? req?.headers);
  const raw = init?.body ?? (req?.body ? await req.arrayBuffer() : undefined);
  const body = raw === undefined || raw === null ? undefined : typeof raw === 'string' ? raw : raw instanceof Uint8Array ? raw : new Uint8Array(raw as ArrayBuffer);
  let res: Received;
  try {
    res = await send(ctx, url, method, headers, body);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    const timedOut = err instanceof Error && /no response within|timed? ?out|timeout/i.test(err.message);
    throw new UpstreamError(timedOut ? `The ${SERVICE} service timed out.` : `Failed to retrieve data from ${SERVICE} service.`, { cause: err });
  }
  if (isBlockPage(res.status, res.contentType, res.body)) throw blocked(ctx, `HTTP ${res.status} from ${new URL(url).pathname}`);
  if (res.status >= 500) throw new UpstreamError(`Failed to retrieve data from ${SERVICE} service.`, { cause: new Error(`HTTP ${res.status} from ${url}`) });
  // 4xx other than 429 reach the caller as a response: youtubei.js reports them, and callers of
  // `innertube()` below turn them into the right catalogue error.
  return new SiteResponse(res.status, url, res.contentType || 'application/octet-stream', res.status === 204 || res.status === 304 ? null : res.body) as unknown as Response;
}

/**
 * youtubei.js, imported at the plugin's first call: it is ~670 modules (about 2 s of CPU under
 * tsx, more than the rest of the service's boot) that an instance never asked for a video skips.
 */
let library: Promise<typeof import('youtubei.js')> | undefined;
function youtubei(): Promise<typeof import('youtubei.js')> {
  library ??= import('youtubei.js');
  library.catch(() => (library = undefined));
  return library;
}

/**
 * Builds the shared state; the session (made locally, no request; player script not loaded, not
 * needed) is made at its first use.
 */
export function createState(cfg: NativeConfig): NativeState {
  let session: Promise<Innertube> | undefined;
  return {
    get session() {
      session ??= openSession();
      return session;
    },
    proxy: cfg.proxyUrl ? new ProxyAgent(cfg.proxyUrl) : undefined,
  };
}

async function openSession(): Promise<Innertube> {
  const { Innertube, Log } = await youtubei();
  Log.setLevel(Log.Level.NONE); // Parser warnings about renderers it does not know go to stdout otherwise.
  return Innertube.create({
    // Requests go through a per-call client (`clientOf`); the session itself never fetches.
    fetch: (async () => {
      throw new Error('videosite_native: site request outside a call');
    }) as Types.FetchFunction,
    generate_session_locally: true,
    retrieve_player: false,
    retrieve_innertube_config: false,
    enable_session_cache: false,
    lang: 'en',
    location: 'US',
  });
}

/** youtubei.js's HTTP client of the shared session (client context, headers), fetching for this call. */
async function clientOf(ctx: RunContext<NativeState>, yt: Innertube): Promise<HTTPClient> {
  const { HTTPClient } = await youtubei();
  return new HTTPClient(yt.session, undefined, ((input: RequestInfo | URL, init?: RequestInit) => siteFetch(ctx, input, init)) as Types.FetchFunction);
}

/** Which InnerTube client a request speaks as (captions need ANDROID: the WEB player's caption URLs want a PO token). */
export type Client = 'WEB' | 'ANDROID';

/**
 * One InnerTube call; returns the raw JSON. A 4xx answer (bad continuation token, unknown id) is
 * a 400 or 404 decided by `on4xx`; an unparsable answer is a 502 (spec §7.1).
 */
export async function innertube<T = any>(ctx: RunContext<NativeState>, endpoint: string, payload: Record<string, unknown>, opts: { client?: Client; on4xx?: (status: number) => Error } = {}): Promise<T> {
  const yt = await ctx.state.session;
  try {
    // What `yt.actions.execute(endpoint, { ...payload, client, parse: false })` sends, through
    // this call's client: the library adds the client's context and headers.
    const body = JSON.stringify({ ...payload, ...(opts.client && opts.client !== 'WEB' ? { client: opts.client } : {}) });
    const res = await (await clientOf(ctx, yt)).fetch(endpoint, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    const data: unknown = await res.json();
    if (!data || typeof data !== 'object') throw new UpstreamError(`Received invalid data structure from ${SERVICE} service.`, { cause: new Error(`${endpoint}: not a JSON object`) });
    return data as T;
  } catch (err) {
    const status = Number(/status code (\d{3})/.exec(err instanceof Error ? err.message : '')?.[1]);
    if (status >= 400 && status < 500) {
      if (opts.on4xx) throw opts.on4xx(status);
      throw new UpstreamError(`Failed to retrieve data from ${SERVICE} service.`, { cause: err });
    }
    if (err instanceof SyntaxError) throw new UpstreamError(`Received invalid data structure from ${SERVICE} service.`, { cause: err });
    throw err;
  }
}

/** A GET of a site document (caption tracks): the body as text, or an empty string for 4xx. */
export async function siteText(ctx: RunContext<NativeState>, url: string): Promise<{ status: number; text: string }> {
  const res = await siteFetch(ctx, url, { method: 'GET', headers: { 'accept-language': 'en-US,en;q=0.9' } });
  return { status: res.status, text: res.status < 400 ? await res.text() : '' };
}
