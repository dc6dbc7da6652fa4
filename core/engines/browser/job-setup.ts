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
  // The spare page already has the default viewport: changing it costs a round trip.
  if (vp.width !== DEFAULT_VIEWPORT.width || vp.height !== DEFAULT_VIEWPORT.height || vp.deviceScaleFactor || vp.isMobile) steps.push(page.setViewport(vp));
  const ua = req.userAgent ?? (mobile ? MOBILE_USER_AGENT : undefined);
  if (ua) steps.push(page.setUserAgent({ userAgent: ua }));
  const headers = { ...(req.locale?.acceptLanguage ? { 'Accept-Language': req.locale.acceptLanguage } : {}), ...(req.headers ?? {}) };
  if (Object.keys(headers).length) steps.push(page.setExtraHTTPHeaders(headers));
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
