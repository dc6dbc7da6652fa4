/**
 * A loopback fake of the shot_a API (ScreenshotOne, contracts §7a) on the fake kit: `GET|POST /take`,
 * the key as `X-Access-Key` or `access_key` (query or body), a real PNG of the requested viewport
 * or clip back, and its JSON error bodies (`error_code`, most of them with HTTP 400).
 */
import { fakeUpstream, solidPng, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';

/** A running fake. */
export type ShotAFake = FakeUpstream;

/** shot_a's error body for `code`. */
export const shotError = (code: string, message = `Simulated ${code}.`) => ({ is_successful: false, error_code: code, error_message: message, documentation_url: `https://screenshotone.com/docs/errors/${code}/` });

const take: FakeRoute<{}> = ({ query, body }) => {
  const o: Record<string, unknown> = { ...query, ...(body ?? {}) };
  if (typeof o.url !== 'string' || !/^https?:\/\//.test(o.url)) return { status: 400, json: shotError('request_not_valid', 'One of url, html or markdown is required.') };
  if (String(o.format ?? 'jpg') !== 'png') return { status: 400, json: shotError('request_not_valid', 'This fake renders png only.') };
  // With clip_* options the image is the clipped rectangle, as the real API answers.
  const clipped = o.clip_width !== undefined && o.clip_height !== undefined;
  const width = clipped ? Number(o.clip_width) : Number(o.viewport_width ?? 1280);
  const height = clipped ? Number(o.clip_height) : Number(o.viewport_height ?? 1024) * (String(o.full_page) === 'true' ? 3 : 1);
  return { bytes: solidPng(width, height), headers: { 'content-type': 'image/png' } };
};

/** Starts the fake on 127.0.0.1 with a random port. */
export function startShotAFake(opts: { apiKey?: string } = {}): Promise<ShotAFake> {
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

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startShotAFake;
