/**
 * Client of the shot_a API (ScreenshotOne, contracts §7a): `POST /take` with the options as JSON,
 * the key in `X-Access-Key` (never in a URL, so it cannot leak into logs), image bytes back.
 * Its JSON error codes are shot_a's own special cases of the standard fault mapping.
 */
import { InputError, ProviderAuthError, UpstreamRateLimitError, invalidStructure, providerRequest, type HttpResponse, type RunContext, type ServiceError } from '../../core/sdk.js';

/** Options sent to `/take` (snake_case, as the API names them). */
export type TakeOptions = Record<string, string | number | boolean>;

/** Takes a screenshot; returns the bytes and their content type. */
export async function take(ctx: RunContext<unknown>, options: TakeOptions): Promise<{ bytes: Uint8Array; contentType: string }> {
  const { data: bytes, headers } = await providerRequest<Uint8Array>(ctx, {
    path: '/take',
    json: options,
    auth: { header: 'x-access-key' },
    as: 'bytes',
    timeoutMs: 90_000,
    maxBytes: 50 * 1024 * 1024,
    mapError,
  });
  const contentType = (headers['content-type'] ?? '').split(';')[0]!.trim();
  if (!contentType.startsWith('image/') || bytes.byteLength === 0) throw invalidStructure(ctx, `not an image: ${contentType || 'no type'}`);
  return { bytes, contentType };
}

/** contracts §7a: `{ is_successful:false, error_code, error_message }`; most codes come as HTTP 400. */
function mapError(res: HttpResponse): ServiceError | undefined {
  let code = '';
  let message = '';
  try {
    const body = res.json<{ error_code?: string; error_message?: string }>();
    code = String(body.error_code ?? '');
    message = String(body.error_message ?? '');
  } catch {
    return undefined;
  }
  const cause = new Error(`shot_a HTTP ${res.status} ${code}: ${message}`);
  if (/^(access_key_required|access_key_invalid|signature_is_required|signature_is_not_valid)$/.test(code)) return new ProviderAuthError({ cause });
  if (/^(concurrency_limit_reached|screenshots_limit_reached)$/.test(code)) return new UpstreamRateLimitError({ cause });
  if (/^(request_not_valid|selector_not_found|name_not_resolved|script_triggers_redirect|resulting_image_too_large)$/.test(code)) {
    return new InputError(`shot_a rejected the request: ${message || code}.`, { cause });
  }
  return undefined;
}
