/**
 * Client of the search_a API (Serper-compatible, contracts §1): `POST {base}/{endpoint}` with the
 * key in `X-API-KEY` and the parameters as a JSON body. Upstream failures become catalogue errors
 * here (spec §7.1): 401/403 → 500 provider auth, 429 → 503, 400 → 400 with the provider's reason,
 * anything else (5xx, timeout, unreachable, non-JSON) → 502. Messages never carry the key or the
 * configured base URL.
 */
import { InputError, ProviderAuthError, UpstreamError, UpstreamRateLimitError, ServiceError, type HttpResponse, type RunContext } from '../../core/sdk.js';

const NAME = 'search_a';
/** Default time allowed for one upstream call (overridable with SEARCH_A_TIMEOUT_MS). */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** The longest SEARCH_A_TIMEOUT_MS honoured; also the endpoint's executor timeout. */
export const MAX_TIMEOUT_MS = 60_000;
const MAX_BYTES = 10 * 1024 * 1024;

/** The provider endpoints (one path segment each, contracts §1 "Base URL"). */
export type SerperEndpoint = 'search' | 'news' | 'places' | 'maps' | 'autocomplete' | 'images' | 'videos' | 'shopping' | 'scholar' | 'patents';

/** The per-call timeout from the plugin configuration, clamped to a sane range. */
export function timeoutOf(config: Record<string, string | undefined>): number {
  const n = Number(config.timeoutMs);
  if (!Number.isFinite(n) || n <= 0) return DEFAULT_TIMEOUT_MS;
  return Math.min(Math.max(Math.round(n), 100), MAX_TIMEOUT_MS);
}

/** Drops undefined fields so the provider only sees what the caller set. */
export function compact(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

/** Calls one endpoint and returns the parsed JSON payload (not yet checked against a schema). */
export async function serperCall(ctx: RunContext<unknown>, endpoint: SerperEndpoint, body: Record<string, unknown>): Promise<unknown> {
  const base = String(ctx.config.baseUrl ?? '').replace(/\/+$/, '');
  const timeoutMs = timeoutOf(ctx.config);
  let res: HttpResponse;
  try {
    res = await ctx.engines.http.request({
      url: `${base}/${endpoint}`,
      method: 'POST',
      headers: { 'x-api-key': String(ctx.config.apiKey ?? ''), accept: 'application/json' },
      json: compact(body),
      guard: false,
      timeoutMs,
      maxBytes: MAX_BYTES,
      maxRedirects: 0,
      signal: ctx.signal,
    });
  } catch (err) {
    // The client went away or the executor gave up: let the executor report that itself.
    if (ctx.signal.aborted) throw err;
    const timedOut = err instanceof Error && /no response within/.test(err.message);
    if (timedOut) throw new UpstreamError(`The ${NAME} service timed out.`, { cause: err });
    if (err instanceof ServiceError && !(err instanceof UpstreamError) && err.code !== 'PAYLOAD_TOO_LARGE') throw err;
    throw new UpstreamError(`Failed to retrieve results from the ${NAME} service.`, { cause: err });
  }
  if (res.status < 200 || res.status >= 300) throw mapError(res);
  try {
    return res.json();
  } catch (err) {
    throw new UpstreamError(`Received invalid data structure from ${NAME} service.`, { cause: err });
  }
}

/** The provider's `message` field, when the error body has one (contracts §1 "Errors"). */
function upstreamMessage(res: HttpResponse): string {
  try {
    const body = res.json<{ message?: unknown }>();
    if (body && typeof body.message === 'string') return body.message.trim().slice(0, 300);
  } catch {
    // Not JSON: fall back to the text.
  }
  return res.text().trim().slice(0, 300);
}

/** Maps a non-2xx answer to the catalogue (spec §7.1). */
function mapError(res: HttpResponse): ServiceError {
  const message = upstreamMessage(res);
  const cause = new Error(`${NAME} HTTP ${res.status}: ${message}`);
  if (res.status === 401 || res.status === 403) return new ProviderAuthError({ cause });
  if (res.status === 429) return new UpstreamRateLimitError({ cause });
  // The provider reports an exhausted account as a 400 too; that is the operator's problem, not the caller's.
  if (res.status === 400 && /credit/i.test(message)) return new ProviderAuthError({ cause });
  if (res.status === 400) return new InputError(`The ${NAME} service rejected the request: ${message.replace(/[.\s]+$/, '') || 'invalid parameters'}.`, { cause });
  return new UpstreamError(`Failed to retrieve results from the ${NAME} service (HTTP ${res.status}).`, { cause });
}

/** The payload without the provider's own credit count, which would read like ours (spec §8.1). */
export function withoutCredits(payload: unknown): unknown {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return payload;
  const { credits: _credits, ...rest } = payload as Record<string, unknown>;
  return rest;
}
