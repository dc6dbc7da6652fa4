/**
 * One upstream call of a provider plugin (issue 11, SDK for providers): base URL and credentials
 * from the plugin's settings, timeout, JSON or binary body, the SSRF exemption an operator-set
 * base URL needs, and the standard mapping of faults to the catalogue (spec §7.1), with a hook for
 * a provider's own special cases. Every provider client goes through it, so a provider's failures
 * read the same whichever plugin served the call.
 */
import {
  ProviderAuthError,
  ProviderOutOfCreditsError,
  ServiceError,
  UpstreamError,
  UpstreamRateLimitError,
} from '../errors.js';
import type { HttpResponse } from '../engines/http/types.js';
import type { RunContext } from './types.js';
import { providerStatusError } from './upstream-errors.js';

/** How the provider's key travels. */
export type ProviderAuth =
  | { header: string; prefix?: string }
  | { query: string }
  | { basic: { user: string; password: string } }
  | 'none';

/** One upstream call. */
export interface ProviderCall {
  /** Path (and optional query string) appended to the base URL, e.g. `/v1/crawl`. */
  path?: string;
  /**
   * An absolute URL the provider handed back (a status or next-page link) instead of `path`.
   * Check that its origin is the configured one before following it: the key goes with it.
   */
  url?: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON (`undefined` fields dropped at the top level). */
  json?: unknown;
  /** A raw body (with `headers['content-type']`). */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Default: `{ header: 'authorization', prefix: 'Bearer ' }` with `ctx.config.apiKey`. */
  auth?: ProviderAuth;
  /** Default: `ctx.config.baseUrl`. */
  baseUrl?: string;
  /** Default: `ctx.config.apiKey`. */
  apiKey?: string;
  /** Default: `ctx.config.timeoutMs` when set, else 30 s. */
  timeoutMs?: number;
  /** Largest body accepted; default 10 MB. */
  maxBytes?: number;
  /** How the body is returned: parsed JSON (default), text, or bytes. */
  as?: 'json' | 'text' | 'bytes';
  /**
   * The name used in public messages (`Received invalid data structure from <service> service.`);
   * default the plugin id. The video-site operations say `videosite`, say.
   */
  service?: string;
  /** Statuses that are not failures besides 2xx (e.g. 404 that means "nothing found"). */
  accept?: number[];
  /**
   * The provider's own special cases, tried before the standard mapping: return a catalogue error
   * to throw, or `undefined` to fall through. `message` is the provider's error text, if any.
   */
  mapError?(res: HttpResponse, message: string): ServiceError | undefined;
}

/** A successful upstream answer. */
export interface ProviderAnswer<T> {
  status: number;
  headers: Record<string, string>;
  data: T;
  response: HttpResponse;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/** The error text of a provider's JSON error body (`message`, `error`, `detail`, `error.message`). */
export function providerMessage(res: HttpResponse): string {
  try {
    const body = res.json<Record<string, unknown>>();
    for (const k of ['message', 'error', 'detail', 'status_message', 'title']) {
      const v = body?.[k];
      if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 300);
      if (v && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string') return String((v as { message: string }).message).trim().slice(0, 300);
    }
  } catch {
    // Not JSON: a plain-text message is the provider's own words; an HTML error page says
    // nothing a caller should see.
    if ((res.headers['content-type'] ?? '').startsWith('text/plain')) return res.text().trim().slice(0, 300);
  }
  return '';
}

function urlOf(base: string, path: string, query: ProviderCall['query']): string {
  const url = new URL(path ? base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`) : base);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

function compactJson(json: unknown): unknown {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return json;
  return Object.fromEntries(Object.entries(json).filter(([, v]) => v !== undefined));
}

/**
 * Maps a failed status to the catalogue: the provider's hook first, then 401/403 → 500
 * `Service authentication failed`, 402 (the operator's account at the provider is out of credits)
 * → a fallback-able 503 logged for the operator, 429 → 503 `Rate limit exceeded`, and everything
 * else through {@link providerStatusError} (400 → the caller's input, others → 502).
 */
export function mapProviderStatus(ctx: Pick<RunContext, 'log' | 'provider'>, call: Pick<ProviderCall, 'mapError' | 'service'>, res: HttpResponse): ServiceError {
  const message = providerMessage(res);
  const special = call.mapError?.(res, message);
  if (special) return special;
  const name = ctx.provider;
  const cause = new Error(`${name} HTTP ${res.status}: ${message}`);
  if (res.status === 401 || res.status === 403) return new ProviderAuthError({ cause });
  if (res.status === 402) {
    ctx.log.error({ provider: name, status: 402, message }, `the ${name} account has run out of credits: top it up with the provider`);
    return new ProviderOutOfCreditsError({ cause });
  }
  if (res.status === 429) return new UpstreamRateLimitError({ cause, retryAfter: res.headers['retry-after'] });
  if (res.status >= 500) return new UpstreamError(`Failed to retrieve data from ${call.service ?? name} service.`, { cause });
  return providerStatusError(call.service ?? name, res.status, message.replace(/[.\s]+$/, ''));
}

/** Makes one upstream call; throws only catalogue errors (or the caller's abort reason). */
export async function providerRequest<T = unknown>(ctx: RunContext<any, any>, call: ProviderCall): Promise<ProviderAnswer<T>> {
  const config = ctx.config as Record<string, unknown>;
  const service = call.service ?? ctx.provider;
  const base = String(call.baseUrl ?? config.baseUrl ?? '');
  const key = String(call.apiKey ?? config.apiKey ?? '');
  const auth = call.auth ?? { header: 'authorization', prefix: 'Bearer ' };
  const headers: Record<string, string> = { accept: call.as === 'bytes' ? '*/*' : 'application/json', ...(call.headers ?? {}) };
  const query = { ...(call.query ?? {}) };
  if (auth !== 'none') {
    if ('header' in auth) headers[auth.header.toLowerCase()] = `${auth.prefix ?? ''}${key}`;
    else if ('query' in auth) query[auth.query] = key;
    else headers.authorization = `Basic ${Buffer.from(`${auth.basic.user}:${auth.basic.password}`).toString('base64')}`;
  }
  const configured = Number(config.timeoutMs);
  const timeoutMs = call.timeoutMs ?? (Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_TIMEOUT_MS);
  let res: HttpResponse;
  try {
    res = await ctx.engines.http.request({
      url: call.url ? urlOf(call.url, '', query) : urlOf(base, call.path ?? '', query),
      method: call.method ?? (call.json !== undefined || call.body !== undefined ? 'POST' : 'GET'),
      headers,
      json: call.json === undefined ? undefined : compactJson(call.json),
      body: call.body,
      // The base URL is the operator's setting, not the caller's: the SSRF guard is for user URLs.
      guard: false,
      timeoutMs,
      maxBytes: call.maxBytes ?? DEFAULT_MAX_BYTES,
      maxRedirects: 0,
      signal: ctx.signal,
    });
  } catch (err) {
    // The caller went away or the executor gave up: it reports that itself.
    if (ctx.signal.aborted) throw err;
    if (err instanceof ServiceError && !(err instanceof UpstreamError) && err.code !== 'PAYLOAD_TOO_LARGE') throw err;
    const timedOut = err instanceof Error && /no response within|timed? ?out/i.test(err.message);
    throw new UpstreamError(timedOut ? `The ${service} service timed out.` : `Failed to retrieve data from ${service} service.`, { cause: err });
  }
  const ok = (res.status >= 200 && res.status < 300) || (call.accept ?? []).includes(res.status);
  if (!ok) throw mapProviderStatus(ctx, call, res);
  let data: unknown;
  if (call.as === 'bytes') data = res.body;
  else if (call.as === 'text') data = res.text();
  else if (res.body.length === 0) data = undefined;
  else {
    try {
      data = res.json();
    } catch (err) {
      throw new UpstreamError(`Received invalid data structure from ${service} service.`, { cause: err });
    }
  }
  return { status: res.status, headers: res.headers, data: data as T, response: res };
}

/** A provider answer that lacks what the client needs: the spec's 502 wording (spec §7.1). */
export function invalidStructure(ctx: Pick<RunContext, 'provider'>, detail: string, service?: string): UpstreamError {
  return new UpstreamError(`Received invalid data structure from ${service ?? ctx.provider} service.`, { cause: new Error(detail) });
}
