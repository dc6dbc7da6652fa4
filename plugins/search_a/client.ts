/**
 * Client of the search_a API (Serper-compatible, contracts §1): `POST {base}/{endpoint}` with the
 * key in `X-API-KEY` and the parameters as a JSON body. Upstream failures become catalogue errors
 * here (spec §7.1): search_a's own special case first (its 400 "Not enough credits" is our
 * account, not the caller's input), then the SDK's `providerStatusError` for every other status;
 * timeouts, unreachable hosts and non-JSON bodies → 502. Messages never carry the key or the
 * configured base URL.
 */
import { ProviderAuthError, ServiceError, UpstreamError, providerStatusError, type HttpResponse, type RunContext } from '../../core/sdk.js';

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
  if (res.status < 200 || res.status >= 300) throw mapError(res.status, upstreamMessage(res));
  try {
    return res.json();
  } catch (err) {
    throw new UpstreamError(`Received invalid data structure from ${NAME} service.`, { cause: err });
  }
}

/**
 * The provider's `message` field (contracts §1 "Errors": `{ message, statusCode }`). Any other
 * body (an HTML error page, say) is not shown to callers: the status alone describes it.
 */
function upstreamMessage(res: HttpResponse): string {
  try {
    const body = res.json<{ message?: unknown }>();
    if (body && typeof body.message === 'string') return body.message.trim().slice(0, 300);
  } catch {
    // Not JSON.
  }
  return '';
}

/**
 * How the provider reports an exhausted account (contracts §1 "Errors": 400 `Not enough credits`).
 * Matched narrowly so a 400 about a `credits`-like parameter stays the caller's input error.
 */
const OUT_OF_CREDITS = /\b(not enough|insufficient|out of) credits?\b/i;

/**
 * Maps a non-2xx answer to the catalogue (spec §7.1). An exhausted provider account is the
 * operator's problem like a revoked key (the provider also answers 403 for it), so it is the same
 * 500 `Service authentication failed` and the next provider of a capability is tried.
 */
export function mapError(status: number, message: string): ServiceError {
  if (status === 400 && OUT_OF_CREDITS.test(message)) return new ProviderAuthError({ cause: new Error(`${NAME} HTTP 400: ${message}`) });
  return providerStatusError(NAME, status, message.replace(/[.\s]+$/, ''));
}

/** The payload without the provider's own credit count, which would read like ours (spec §8.1). */
export function withoutCredits(payload: unknown): unknown {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return payload;
  const { credits: _credits, ...rest } = payload as Record<string, unknown>;
  return rest;
}
