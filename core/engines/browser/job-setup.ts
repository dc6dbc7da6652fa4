/**
 * Sets up a job's own browser context before it navigates (issue 27): viewport and device
 * emulation, user agent, the caller's headers and cookies, locale and timezone, blocked URLs.
 * Everything here lives in the job's context, which is closed when the job ends, so nothing a
 * caller sets can reach another caller's page.
 */
import type { Viewport } from 'puppeteer-core';
import { InputError } from '../../errors.js';
import { DEFAULT_VIEWPORT, type FreshPage } from './pool.js';
import type { RenderRequest } from './types.js';

/** A phone's viewport (iPhone 14/15 class) for `mobile`. */
export const MOBILE_VIEWPORT = { width: 390, height: 844, deviceScaleFactor: 3 } as const;
/** A phone browser's user agent for `mobile`: sites choose their mobile layout by it. */
export const MOBILE_USER_AGENT =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36';

/**
 * Adds the caller's headers to the requests the page makes to the target's origin, and to no
 * other: a token meant for the site must not reach the CDNs, trackers and redirect targets the
 * page loads from (as the plain fetch drops credentials when a redirect leaves the origin).
 * Chromium pauses only requests matching the pattern, so other hosts cost nothing; the override
 * does not follow a redirect, so a hop is re-paused (and re-checked) at its own URL.
 */
async function sendHeadersToOrigin(fresh: FreshPage, headers: Record<string, string>, target: URL): Promise<void> {
  const session = await fresh.page.createCDPSession();
  const names = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
  session.on('Fetch.requestPaused', (e: { requestId: string; request: { url: string; headers: Record<string, string> } }) => {
    let ours = false;
    try {
      ours = new URL(e.request.url).origin === target.origin;
    } catch {
      // Not a URL the origin check can read: sent as the page made it.
    }
    const kept = Object.entries(e.request.headers).filter(([name]) => !ours || !names.has(name.toLowerCase()));
    const sent = ours ? [...kept, ...Object.entries(headers)] : kept;
    session
      .send('Fetch.continueRequest', { requestId: e.requestId, ...(ours ? { headers: sent.map(([name, value]) => ({ name, value })) } : {}) })
      .catch(() => undefined);
  });
  // `*` and `?` are the pattern's wildcards: an origin holds neither, nor the backslash that escapes them.
  await session.send('Fetch.enable', { patterns: [{ urlPattern: `${target.origin}/*`, requestStage: 'Request' }] });
}

/**
 * Refuses a `waitForSelector` the browser cannot read before the page loads (issue 27 audit,
 * finding 5): the wait itself retries a bad selector until the timeout, a 502 after the whole
 * wait. Read by the same query the wait uses, on the blank page the job starts from.
 */
async function checkWaitSelector(fresh: FreshPage, selector: string): Promise<void> {
  try {
    await fresh.page.$(selector);
  } catch (err) {
    if (/is not a valid selector|SyntaxError|Unknown selector|Invalid selector/i.test(String((err as Error)?.message ?? err))) {
      throw new InputError(`'waitForSelector' is not a valid CSS selector: '${selector}'.`);
    }
    // Anything else is the page's trouble, which the job meets (and reports) when it navigates.
  }
}

/** Applies `req`'s context settings to the fresh page; returns the viewport the page now has. */
export async function prepareContext(fresh: FreshPage, req: RenderRequest, target: URL): Promise<Viewport> {
  const { page } = fresh;
  const v = req.viewport;
  const mobile = v?.mobile === true;
  const vp: Viewport = {
    width: v?.width ?? (mobile ? MOBILE_VIEWPORT.width : DEFAULT_VIEWPORT.width),
    height: v?.height ?? (mobile ? MOBILE_VIEWPORT.height : DEFAULT_VIEWPORT.height),
    ...(v?.deviceScaleFactor || mobile ? { deviceScaleFactor: v?.deviceScaleFactor ?? MOBILE_VIEWPORT.deviceScaleFactor } : {}),
    ...(mobile ? { isMobile: true, hasTouch: true } : {}),
  };
  const steps: Promise<unknown>[] = [];
  if (req.waitForSelector) steps.push(checkWaitSelector(fresh, req.waitForSelector));
  // The spare page already has the default viewport: changing it costs a round trip.
  if (vp.width !== DEFAULT_VIEWPORT.width || vp.height !== DEFAULT_VIEWPORT.height || vp.deviceScaleFactor || vp.isMobile) steps.push(page.setViewport(vp));
  const ua = req.userAgent ?? (mobile ? MOBILE_USER_AGENT : undefined);
  if (ua) steps.push(page.setUserAgent({ userAgent: ua }));
  // The language is what any visitor's browser sends everywhere; the caller's own headers are not (below).
  if (req.locale?.acceptLanguage) steps.push(page.setExtraHTTPHeaders({ 'Accept-Language': req.locale.acceptLanguage }));
  if (Object.keys(req.headers ?? {}).length) steps.push(sendHeadersToOrigin(fresh, req.headers!, target));
  if (req.locale?.timezone) steps.push(page.emulateTimezone(req.locale.timezone).catch(() => undefined));
  if (req.cookies?.length) {
    steps.push(
      page.setCookie(...req.cookies.map((c) => ({ name: c.name, value: c.value, path: c.path ?? '/', ...(c.domain ? { domain: c.domain } : { url: target.origin }) }))).catch((err: unknown) => {
        throw new InputError(`'cookies' could not be set: ${String((err as Error)?.message ?? err).split('\n')[0]}.`);
      }),
    );
  }
  if (req.locale?.locale || req.locale?.acceptLanguage || req.blockUrls?.length) {
    steps.push(
      (async () => {
        const session = await page.createCDPSession();
        const calls: Promise<unknown>[] = [];
        if (req.locale?.locale) calls.push(session.send('Emulation.setLocaleOverride', { locale: req.locale.locale }).catch(() => undefined));
        if (req.locale?.acceptLanguage) {
          // navigator.language(s) follow the Accept-Language given here, as on a real visitor's browser.
          const userAgent = ua ?? (await page.browser().userAgent());
          calls.push(session.send('Emulation.setUserAgentOverride', { userAgent, acceptLanguage: req.locale.acceptLanguage }));
        }
        if (req.blockUrls?.length) calls.push(session.send('Network.enable').then(() => session.send('Network.setBlockedURLs', { urls: req.blockUrls! })));
        await Promise.all(calls);
      })(),
    );
  }
  await Promise.all(steps);
  return vp;
}
