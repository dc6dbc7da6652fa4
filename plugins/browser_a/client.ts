/**
 * Client of the browser_a API (Browserless REST, contracts §7b): `POST /screenshot` and
 * `POST /scrape` with JSON bodies and the token as `?token=`. Error bodies are plain text; they
 * become catalogue errors here, and URLs in messages never carry the token.
 */
import { type HttpResponse, providerStatusError, type RunContext, UpstreamError } from '../../core/sdk.js';

const NAME = 'browser_a';

/** POSTs `body` to a Browserless route; returns the raw response on 2xx. */
export async function browserCall(ctx: RunContext<unknown>, route: 'screenshot' | 'scrape', body: Record<string, unknown>, timeoutMs: number): Promise<HttpResponse> {
  const base = String(ctx.config.baseUrl).replace(/\/+$/, '');
  const url = new URL(`${base}/${route}`);
  url.searchParams.set('token', String(ctx.config.apiKey));
  url.searchParams.set('timeout', String(timeoutMs));
  const res = await ctx.engines.http.request({
    url: url.href,
    method: 'POST',
    json: body,
    guard: false,
    timeoutMs: timeoutMs + 10_000,
    maxBytes: 50 * 1024 * 1024,
    signal: ctx.signal,
  });
  if (res.status >= 200 && res.status < 300) return res;
  throw mapError(res);
}

/** contracts §7b "Errors": text bodies; 401 or 403 for the token, 429 queue full, 408 timeout. */
function mapError(res: HttpResponse): Error {
  const text = res.text().trim().slice(0, 200);
  const cause = new Error(`${NAME} HTTP ${res.status}: ${text}`);
  if (res.status === 408) return new UpstreamError(`Failed to retrieve the page through ${NAME}: the request timed out.`, { cause });
  if ([400, 401, 403, 429].includes(res.status)) return providerStatusError(NAME, res.status, text);
  return new UpstreamError(`Failed to retrieve the page through ${NAME}: ${text || `HTTP ${res.status}`}.`, { cause });
}

/** Parses a JSON answer or reports the upstream's garbage as a 502. */
export function jsonOf<T>(res: HttpResponse): T {
  try {
    return res.json<T>();
  } catch (err) {
    throw new UpstreamError(`Received invalid data structure from ${NAME} service.`, { cause: err });
  }
}
