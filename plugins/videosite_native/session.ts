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
 * The call's context travels in an AsyncLocalStorage, so one session serves concurrent calls.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Innertube, Log, type Types } from 'youtubei.js';
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
  session: Promise<Innertube>;
  proxy?: ProxyAgent;
}

/** The public name in messages (spec §7.1: `Received invalid data structure from videosite service.`). */
export const SERVICE = 'videosite';
const MAX_BYTES = 20 * 1024 * 1024;
const calls = new AsyncLocalStorage<RunContext<NativeState>>();

/** `url` on the configured base: scheme, host and port replaced, path and query kept. */
export function onBase(url: string, base: string): string {
  const u = new URL(url);
  const b = new URL(base);
  const prefix = b.pathname.replace(/\/+$/, '');
  return `${b.origin}${prefix}${u.pathname}${u.search}`;
}

/** The site answered with its captcha / "unusual traffic" page instead of data. */
function isBlockPage(status: number, contentType: string, body: Uint8Array): boolean {
  if (status === 429) return true;
  if (!/text\/html/i.test(contentType)) return false;
  const head = Buffer.from(body.subarray(0, 64 * 1024)).toString('utf8');
  return /unusual traffic|g-recaptcha|\/sorry\/index|detected unusual/i.test(head);
}

/** spec §7.1 503, with the operator's hint in the log (issue 12: "tell the operator to set a proxy"). */
export function blocked(ctx: RunContext<NativeState>, why: string): UpstreamRateLimitError {
  ctx.log.warn({ provider: ctx.provider, why }, 'the video site is blocking or rate-limiting this server: set VIDEOSITE_NATIVE_PROXY_URL to route its requests through a proxy');
  return new UpstreamRateLimitError({ cause: new Error(why) });
}

async function send(ctx: RunContext<NativeState>, url: string, method: string, headers: Record<string, string>, body: Uint8Array | undefined): Promise<{ status: number; headers: Record<string, string>; body: Uint8Array }> {
  const cfg = ctx.config as unknown as NativeConfig;
  const timeoutMs = cfg.timeoutMs;
  if (ctx.state.proxy) {
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
    const res = await undiciFetch(url, { method, headers, body, dispatcher: ctx.state.proxy, signal, redirect: 'follow' });
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > MAX_BYTES) throw new UpstreamError(`Failed to retrieve data from ${SERVICE} service.`, { cause: new Error('response too large') });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: bytes };
  }
  const res = await ctx.engines.http.request({ url, method, headers, body, guard: false, timeoutMs, maxBytes: MAX_BYTES, maxRedirects: 3, signal: ctx.signal });
  return { status: res.status, headers: res.headers, body: res.body };
}

/** The fetch handed to youtubei.js (and used for caption documents): see the file comment. */
export async function siteFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const ctx = calls.getStore();
  if (!ctx) throw new Error('videosite_native: site request outside a call');
  const req = input instanceof Request ? input : new Request(input, init);
  const url = onBase(req.url, (ctx.config as unknown as NativeConfig).baseUrl);
  const headers: Record<string, string> = {};
  new Headers(init?.headers ?? req.headers).forEach((v, k) => {
    if (k !== 'cookie' && k !== 'content-length') headers[k] = v;
  });
  const raw = init?.body ?? (req.body ? await req.arrayBuffer() : undefined);
  const body = raw === undefined || raw === null ? undefined : typeof raw === 'string' ? Buffer.from(raw) : new Uint8Array(raw as ArrayBuffer);
  let res;
  try {
    res = await send(ctx, url, req.method, headers, body);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    const timedOut = err instanceof Error && /no response within|timed? ?out|timeout/i.test(err.message);
    throw new UpstreamError(timedOut ? `The ${SERVICE} service timed out.` : `Failed to retrieve data from ${SERVICE} service.`, { cause: err });
  }
  if (isBlockPage(res.status, res.headers['content-type'] ?? '', res.body)) throw blocked(ctx, `HTTP ${res.status} from ${new URL(url).pathname}`);
  if (res.status >= 500) throw new UpstreamError(`Failed to retrieve data from ${SERVICE} service.`, { cause: new Error(`HTTP ${res.status} from ${url}`) });
  // 4xx other than 429 reach the caller as a Response: youtubei.js reports them, and callers of
  // `innertube()` below turn them into the right catalogue error.
  return new Response(res.status === 204 || res.status === 304 ? null : (res.body as Uint8Array<ArrayBuffer>), { status: res.status, headers: { 'content-type': res.headers['content-type'] ?? 'application/octet-stream' } });
}

/** Builds the shared session: made locally (no request), player script not loaded (not needed). */
export function createState(cfg: NativeConfig): NativeState {
  Log.setLevel(Log.Level.NONE); // Parser warnings about renderers it does not know go to stdout otherwise.
  return {
    session: Innertube.create({
      fetch: siteFetch as Types.FetchFunction,
      generate_session_locally: true,
      retrieve_player: false,
      retrieve_innertube_config: false,
      enable_session_cache: false,
      lang: 'en',
      location: 'US',
    }),
    proxy: cfg.proxyUrl ? new ProxyAgent(cfg.proxyUrl) : undefined,
  };
}

/** Runs `fn` with this call's context bound for {@link siteFetch}. */
export function withCall<T>(ctx: RunContext<NativeState>, fn: (yt: Innertube) => Promise<T>): Promise<T> {
  return calls.run(ctx, async () => fn(await ctx.state.session));
}

/** Which InnerTube client a request speaks as (captions need ANDROID: the WEB player's caption URLs want a PO token). */
export type Client = 'WEB' | 'ANDROID';

/**
 * One InnerTube call; returns the raw JSON. A 4xx answer (bad continuation token, unknown id) is
 * a 400 or 404 decided by `on4xx`; an unparsable answer is a 502 (spec §7.1).
 */
export async function innertube<T = any>(ctx: RunContext<NativeState>, endpoint: string, payload: Record<string, unknown>, opts: { client?: Client; on4xx?: (status: number) => Error } = {}): Promise<T> {
  return withCall(ctx, async (yt) => {
    try {
      const res = await yt.actions.execute(endpoint, { ...payload, ...(opts.client && opts.client !== 'WEB' ? { client: opts.client } : {}), parse: false });
      if (!res.data || typeof res.data !== 'object') throw new UpstreamError(`Received invalid data structure from ${SERVICE} service.`, { cause: new Error(`${endpoint}: not a JSON object`) });
      return res.data as T;
    } catch (err) {
      const status = Number(/status code (\d{3})/.exec(err instanceof Error ? err.message : '')?.[1]);
      if (status >= 400 && status < 500) {
        if (opts.on4xx) throw opts.on4xx(status);
        throw new UpstreamError(`Failed to retrieve data from ${SERVICE} service.`, { cause: err });
      }
      if (err instanceof SyntaxError) throw new UpstreamError(`Received invalid data structure from ${SERVICE} service.`, { cause: err });
      throw err;
    }
  });
}

/** A GET of a site document (caption tracks): the body as text, or an empty string for 4xx. */
export async function siteText(ctx: RunContext<NativeState>, url: string): Promise<{ status: number; text: string }> {
  return calls.run(ctx, async () => {
    const res = await siteFetch(url, { method: 'GET', headers: { 'accept-language': 'en-US,en;q=0.9' } });
    return { status: res.status, text: res.status < 400 ? await res.text() : '' };
  });
}
