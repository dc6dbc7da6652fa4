/**
 * A loopback fake of the browser_a API (Browserless REST, contracts §7b) on the fake kit: `?token=`
 * auth, plain-text errors, `POST /screenshot` answering a real PNG of the requested viewport or clip,
 * `POST /scrape` answering `{ data: [{ selector, results }] }` (both also under `/chromium`).
 */
import { fakeUpstream, solidPng, type FakeRequest, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';

/** A running fake. */
export type BrowserAFake = FakeUpstream;

const TEXT: Record<number, string> = { 400: "Couldn't parse JSON body", 401: 'Bad or missing authentication.', 408: 'Request has timed out', 429: 'Too many requests', 500: 'Error loading the browser' };

const screenshot: FakeRoute<{}> = ({ body }, fake) => {
  if (body.options?.path) return fake.error(400, '"path" is not allowed');
  // Puppeteer's options.clip makes the image the clipped rectangle.
  const clip = body.options?.clip;
  const height = clip?.height ?? (body.viewport?.height ?? 600) * (body.options?.fullPage ? 2 : 1);
  return { bytes: solidPng(clip?.width ?? body.viewport?.width ?? 800, height), headers: { 'content-type': 'image/png' } };
};

const scrape: FakeRoute<{}> = ({ body }, fake) => {
  if (!Array.isArray(body.elements) || body.elements.length === 0) return fake.error(400, '"elements" is required');
  const results = [{ html: `<h1>Fake ${body.url}</h1>`, text: `Fake ${body.url}`, width: 800, height: 40, top: 0, left: 0, attributes: [{ name: 'class', value: 'x' }] }];
  return { json: { data: body.elements.map((e: { selector: string }) => ({ selector: e.selector, results })), debug: null } };
};

/** Every route wants a JSON body with an http(s) `url`. */
const needsUrl = (route: FakeRoute<{}>): FakeRoute<{}> => (req: FakeRequest, fake) =>
  req.body === undefined ? fake.error(400, TEXT[400]!) : typeof req.body.url !== 'string' || !/^https?:\/\//.test(req.body.url) ? fake.error(400, 'Either "url" or "html" is required') : route(req, fake);

/** Starts the fake on 127.0.0.1 at a free port (`startFake`, the name the contract test looks for). */
export function startFake(opts: { apiKey?: string } = {}): Promise<BrowserAFake> {
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'bl-test-token',
    auth: { query: 'token' },
    error: (status, message) => TEXT[status] ?? message,
    env: ({ url, apiKey }) => ({ BROWSER_A_BASE_URL: url, BROWSER_A_API_KEY: apiKey }),
    routes: { 'POST /screenshot': needsUrl(screenshot), 'POST /chromium/screenshot': needsUrl(screenshot), 'POST /scrape': needsUrl(scrape), 'POST /chromium/scrape': needsUrl(scrape) },
  });
}
