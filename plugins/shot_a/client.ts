/**
 * Client of the shot_a API (ScreenshotOne, contracts §7a): `POST /take` with the options as JSON,
 * the key in `X-Access-Key` (never in a URL, so it cannot leak into logs), image bytes back.
 * Its JSON error codes become catalogue errors here.
 */
import { InputError, ProviderAuthError, UpstreamError, UpstreamRateLimitError, type HttpResponse, type RunContext } from '../../core/sdk.js';

const NAME = 'shot_a';

/** Options sent to `/take` (snake_case, as the API names them). */
export type TakeOptions = Record<string, string | number | boolean>;

/** Takes a screenshot; returns the bytes and their content type. */
export async function take(ctx: RunContext<unknown>, options: TakeOptions): Promise<{ bytes: Uint8Array; contentType: string }> {
  const base = String(ctx.config.baseUrl).replace(/\/+$/, '');
  const res = await ctx.engines.http.request({
    url: `${base}/take`,
    method: 'POST',
    json: options,
    headers: { 'x-access-key': String(ctx.config.apiKey) },
    guard: false,
    timeoutMs: 90_000,
    maxBytes: 50 * 1024 * 1024,
    signal: ctx.signal,
  });
  const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (res.status === 200 && contentType.startsWith('image/') && res.body.byteLength > 0) return { bytes: res.body, contentType };
  if (res.status === 200) throw new UpstreamError(`Received invalid data structure from ${NAME} service.`);
  throw mapError(res);
}

/** contracts §7a: `{ is_successful:false, error_code, error_message }`; most codes come as HTTP 400. */
function mapError(res: HttpResponse): Error {
  let code = '';
  let message = '';
  try {
    const body = res.json<{ error_code?: string; error_message?: string }>();
    code = String(body.error_code ?? '');
    message = String(body.error_message ?? '');
  } catch {
    message = res.text().slice(0, 200);
  }
  const cause = new Error(`${NAME} HTTP ${res.status} ${code}: ${message}`);
  if (/^(access_key_required|access_key_invalid|signature_is_required|signature_is_not_valid)$/.test(code)) return new ProviderAuthError({ cause });
  if (/^(concurrency_limit_reached|screenshots_limit_reached)$/.test(code) || res.status === 429) return new UpstreamRateLimitError({ cause });
  if (/^(request_not_valid|selector_not_found|name_not_resolved|script_triggers_redirect|resulting_image_too_large)$/.test(code)) {
    return new InputError(`${NAME} rejected the request: ${message || code}.`);
  }
  return new UpstreamError(`Failed to retrieve the screenshot from ${NAME}: ${message || code || `HTTP ${res.status}`}.`, { cause });
}
