/**
 * Screenshots of a rendered page (issue 18 finding 2). A full-page capture is bounded: Chromium
 * paints the whole captured area at once, so an unbounded one let a 60,000 px tall page at
 * 3,840 px wide take ~3.5 GB of its memory for one call. The limit is a height (`maxHeight`,
 * default 16,384) at widths up to 1,280 px and the same area beyond; past it the image shows the
 * top (and left) of the page, and the result says it was clipped.
 */
import type { Page, Viewport } from 'puppeteer-core';
import type { RenderRequest, RenderResult } from './types.js';

/** Default tallest full-page capture, in CSS pixels (Chromium's usual largest texture side). */
export const MAX_SCREENSHOT_HEIGHT = 16_384;

/** Widest full-page capture, in CSS pixels: the widest viewport the API accepts. */
export const MAX_SCREENSHOT_WIDTH = 3_840;

/**
 * Captures up to this wide get the whole height limit; wider ones keep the same area (pixels are
 * what Chromium's memory follows: 3,840 × 16,384 took it from 0.7 to 2 GB, 1,280 × 16,384 to 1.2).
 */
export const FULL_HEIGHT_WIDTH = 1_280;

/** Captures the viewport, the page up to the limits when `fullPage`, or the `clip` area of it. */
export async function capture(page: Page, viewport: Viewport, shot: NonNullable<RenderRequest['screenshot']>): Promise<Pick<RenderResult, 'screenshot' | 'fullPage' | 'clip'>> {
  if (shot.hideSelectors?.length) await hide(page, shot.hideSelectors);
  const png = (p: Page) => image(p, shot);
  if (!shot.fullPage && !shot.clip) return { screenshot: await png(page) };
  const size = await page.evaluate(() => {
    const el = document.documentElement;
    return { width: Math.max(el.scrollWidth, document.body?.scrollWidth ?? 0), height: Math.max(el.scrollHeight, document.body?.scrollHeight ?? 0) };
  });
  const maxHeight = shot.maxHeight && shot.maxHeight > 0 ? Math.floor(shot.maxHeight) : MAX_SCREENSHOT_HEIGHT;
  const bound = (w: number, h: number) => {
    const width = Math.min(Math.max(w, viewport.width), Math.max(MAX_SCREENSHOT_WIDTH, viewport.width));
    return { width, height: Math.min(Math.max(h, 1), maxHeight, Math.floor((maxHeight * FULL_HEIGHT_WIDTH) / Math.max(width, FULL_HEIGHT_WIDTH))) };
  };
  if (shot.clip) {
    // The page is laid out over the area the clip needs (as for fullPage, bounded first); the
    // clip is then cut to what exists, so the image is exactly the area that was captured.
    const c = shot.clip;
    const fullWidth = shot.fullPage ? size.width : viewport.width;
    const fullHeight = shot.fullPage ? size.height : viewport.height;
    const area = bound(Math.max(fullWidth, c.x + c.width), Math.max(fullHeight, c.y + c.height));
    const limitW = Math.min(area.width, Math.max(size.width, viewport.width));
    const limitH = Math.min(area.height, shot.fullPage ? Math.max(size.height, viewport.height) : Math.max(c.y + c.height, viewport.height));
    const x = Math.min(c.x, limitW - 1);
    const y = Math.min(c.y, limitH - 1);
    const clip = { x, y, width: Math.max(1, Math.min(c.width, limitW - x)), height: Math.max(1, Math.min(c.height, limitH - y)) };
    if (area.width !== viewport.width || area.height !== viewport.height) await page.setViewport({ ...viewport, ...area });
    const shotPng = new Uint8Array(await page.screenshot({ ...imageType(shot), clip, captureBeyondViewport: false }));
    const fullPage = shot.fullPage ? { pageWidth: size.width, pageHeight: size.height, clipped: size.width > area.width || size.height > area.height } : undefined;
    return { screenshot: shotPng, clip, ...(fullPage ? { fullPage } : {}) };
  }
  const { width, height } = bound(size.width, size.height);
  // As puppeteer's own fullPage does, the viewport grows to the captured area (it is the page's
  // own context, closed after the job); only here the area is bounded first.
  await page.setViewport({ ...viewport, width, height });
  return { screenshot: await png(page), fullPage: { pageWidth: size.width, pageHeight: size.height, clipped: size.width > width || size.height > height } };
}

/**
 * Scrolls down one viewport at a time until the bottom stays put or `maxMs` has passed, then back
 * to the top: lazy images and infinite lists load what comes into view (screenshot `autoScroll`).
 */
export async function scrollThrough(page: Page, maxMs: number): Promise<void> {
  // A source string, not a function: a transpiler's helpers (tsx's __name) do not exist in the page.
  await page.evaluate(`(async (budget) => {
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    const bottom = () => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
    const end = Date.now() + budget;
    let y = 0;
    let still = 0;
    while (Date.now() < end) {
      y = Math.min(y + Math.max(200, Math.floor(window.innerHeight * 0.8)), bottom());
      window.scrollTo(0, y);
      await sleep(120);
      // At the bottom: content that appears on arrival gets a few more turns before stopping.
      if (y + window.innerHeight >= bottom()) { if (++still >= 3) break; } else still = 0;
    }
    window.scrollTo(0, 0);
    await sleep(50);
  })(${Math.max(0, Math.floor(maxMs))})`);
}

/**
 * Hides the elements matching `selectors` (invalid ones are skipped) and, when any matched, undoes
 * the scroll lock such overlays put on the page; a page without a match is left as it is.
 */
async function hide(page: Page, selectors: string[]): Promise<void> {
  await page
    .evaluate((sels: string[]) => {
      const valid = sels.filter((sel) => {
        try {
          document.querySelector(sel);
          return true;
        } catch {
          return false;
        }
      });
      if (!valid.some((sel) => document.querySelector(sel))) return;
      const style = document.createElement('style');
      style.textContent = `${valid.join(',\n')} { display: none !important; visibility: hidden !important; }\nhtml, body { overflow: auto !important; }`;
      (document.head ?? document.documentElement).appendChild(style);
    }, selectors)
    .catch(() => undefined);
}

function imageType(shot: NonNullable<RenderRequest['screenshot']>): { type: 'png' | 'jpeg' | 'webp'; quality?: number } {
  const type = shot.type ?? 'png';
  return type === 'png' || shot.quality === undefined ? { type } : { type, quality: shot.quality };
}

async function image(page: Page, shot: NonNullable<RenderRequest['screenshot']>): Promise<Uint8Array> {
  return new Uint8Array(await page.screenshot({ ...imageType(shot), fullPage: false, captureBeyondViewport: false }));
}
