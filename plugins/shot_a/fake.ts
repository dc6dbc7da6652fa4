/**
 * A loopback fake of the shot_a API (ScreenshotOne, contracts §7a) on the fake kit: `GET|POST /take`,
 * the key as `X-Access-Key` or `access_key` (query or body), a real PNG of the requested viewport
 * or clip back, and its JSON error bodies (`error_code`, most of them with HTTP 400).
 */
import { fakeUpstream, firstViolation, solidPng, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';
import { Type } from '../../core/sdk.js';

/** shot_a's error body for `code`. */
export const shotError = (code: string, message = `Simulated ${code}.`) => ({ is_successful: false, error_code: code, error_message: message, documentation_url: `https://screenshotone.com/docs/errors/${code}/` });

/** The options this fake renders (the API's own checks are wider; it makes PNG only). */
const Options = Type.Object({ url: Type.String({ pattern: '^https?://', error: 'One of url, html or markdown is required.' }), format: Type.Literal('png', { error: 'This fake renders png only.' }) });

const take: FakeRoute<{}> = ({ query, body }) => {
  const o: Record<string, any> = { ...query, ...body };
  const why = firstViolation(Options, o);
  if (why) return { status: 400, json: shotError('request_not_valid', why) };
  // With clip_* options the image is the clipped rectangle, as the real API answers.
  const [width, height] = o.clip_width && o.clip_height ? [o.clip_width, o.clip_height] : [o.viewport_width ?? 1280, (o.viewport_height ?? 1024) * (String(o.full_page) === 'true' ? 3 : 1)];
  return { bytes: solidPng(Number(width), Number(height)), headers: { 'content-type': 'image/png' } };
};

/** Starts the fake on 127.0.0.1 with a random port. */
export function startFake(opts: { apiKey?: string } = {}): Promise<FakeUpstream> {
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'shot-test-key',
    auth: [{ header: 'x-access-key' }, { query: 'access_key' }, (req, key) => req.body?.access_key === key],
    error: (status, message) => shotError(status === 404 ? 'request_not_valid' : 'internal_application_error', message),
    unauthorized: { status: 400, json: shotError('access_key_invalid', 'Access key is invalid.') },
    rateLimited: { status: 400, json: shotError('concurrency_limit_reached') },
    outOfCredits: { status: 400, json: shotError('screenshots_limit_reached') },
    env: ({ url, apiKey }) => ({ SHOT_A_BASE_URL: url, SHOT_A_API_KEY: apiKey }),
    routes: { 'GET /take': take, 'POST /take': take },
  });
}
