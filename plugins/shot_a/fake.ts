/**
 * A loopback fake of the shot_a API (ScreenshotOne, contracts §7a) on the fake kit: `POST /take`, the
 * key only as `X-Access-Key` (the API also takes it in the URL, where it would leak into logs), a real
 * PNG of the requested viewport or clip back, its JSON error bodies (`error_code`, mostly HTTP 400).
 */
import { checked, fakeUpstream, solidPng, type FakeUpstream } from '../../core/testing/index.js';
import { Type } from '../../core/sdk.js';

/** shot_a's error body for `code`. */
export const shotError = (code: string, message = `Simulated ${code}.`) => ({ is_successful: false, error_code: code, error_message: message, documentation_url: `https://screenshotone.com/docs/errors/${code}/` });

/** The options this fake renders (the API's own checks are wider; it makes PNG only). */
const Options = Type.Object({ url: Type.String({ pattern: '^https?://', error: 'One of url, html or markdown is required.' }), format: Type.Literal('png', { error: 'This fake renders png only.' }) });

const take = checked<{}>({ body: Options }, ({ body: o }) => {
  // With clip_* options the image is the clipped rectangle, as the real API answers.
  const [width, height] = o.clip_width && o.clip_height ? [o.clip_width, o.clip_height] : [o.viewport_width ?? 1280, (o.viewport_height ?? 1024) * (o.full_page ? 3 : 1)];
  return { bytes: solidPng(width, height), headers: { 'content-type': 'image/png' } };
}, (why) => ({ status: 400, json: shotError('request_not_valid', why) }));

/** Starts the fake on 127.0.0.1 with a random port; it takes the kit's test key. */
export const startFake = (): Promise<FakeUpstream> => fakeUpstream({
  auth: { header: 'x-access-key' },
  error: (status, message) => shotError(status === 404 ? 'request_not_valid' : 'internal_application_error', message),
  unauthorized: { status: 400, json: shotError('access_key_invalid', 'Access key is invalid.') },
  rateLimited: { status: 400, json: shotError('concurrency_limit_reached') },
  outOfCredits: { status: 400, json: shotError('screenshots_limit_reached') },
  env: ({ url, apiKey }) => ({ SHOT_A_BASE_URL: url, SHOT_A_API_KEY: apiKey }),
  routes: { 'POST /take': take },
});
