/**
 * Client of the browser_a API (Browserless REST, contracts §7b): `POST /screenshot` and
 * `POST /scrape` with JSON bodies and the token as `?token=`. Error bodies are plain text; its
 * 408 (the page timed out in the remote browser) is browser_a's own special case.
 */
import { UpstreamError, invalidStructure, providerRequest, type HttpResponse, type RunContext } from '../../core/sdk.js';

/** POSTs `body` to a Browserless route; returns the raw response on 2xx. */
export async function browserCall(ctx: RunContext<unknown>, route: 'screenshot' | 'scrape', body: Record<string, unknown>, timeoutMs: number): Promise<HttpResponse> {
  const { response } = await providerRequest(ctx, {
    path: `/${route}`,
    query: { timeout: timeoutMs },
    json: body,
    auth: { query: 'token' },
    as: 'bytes',
    timeoutMs: timeoutMs + 10_000,
    maxBytes: 50 * 1024 * 1024,
    mapError: (res) => (res.status === 408 ? new UpstreamError('Failed to retrieve the page through browser_a: the request timed out.', { cause: new Error(res.text().slice(0, 200)) }) : undefined),
  });
  return response;
}

/** Parses a JSON answer or reports the upstream's garbage as a 502. */
export function jsonOf<T>(ctx: RunContext<unknown>, res: HttpResponse): T {
  try {
    return res.json<T>();
  } catch (err) {
    throw invalidStructure(ctx, String(err));
  }
}
