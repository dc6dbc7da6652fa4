/**
 * Screenshots of a rendered page (issue 18 finding 2). A full-page capture is bounded: Chromium
 * paints the whole captured area at once, so an unbounded one let a 60,000 px tall page at
 * 3,840 px wide take ~3.5 GB of its memory for one call. The limit is a height (`maxHeight`,
 * default 16,384) at widths up to 1,280 px and the same area beyond; past it the image shows the
 * top (and left) of the page, and the result says it was clipped.
 */
import type { Page } from 'puppeteer-core';
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

/** Captures the viewport, or the page up to the limits when `fullPage`. */
export async function capture(page: Page, viewport: { width: number; height: number }, shot: NonNullable<RenderRequest['screenshot']>): Promise<Pick<RenderResult, 'screenshot' | 'fullPage'>> {
  if (!shot.fullPage) return { screenshot: await png(page) };
  const size = await page.evaluate(() => {
    const el = document.documentElement;
    return { width: Math.max(el.scrollWidth, document.body?.scrollWidth ?? 0), height: Math.max(el.scrollHeight, document.body?.scrollHeight ?? 0) };
  });
  const maxHeight = shot.maxHeight && shot.maxHeight > 0 ? Math.floor(shot.maxHeight) : MAX_SCREENSHOT_HEIGHT;
  const width = Math.min(Math.max(size.width, viewport.width), Math.max(MAX_SCREENSHOT_WIDTH, viewport.width));
  const height = Math.min(Math.max(size.height, 1), maxHeight, Math.floor((maxHeight * FULL_HEIGHT_WIDTH) / Math.max(width, FULL_HEIGHT_WIDTH)));
  // As puppeteer's own fullPage does, the viewport grows to the captured area (it is the page's
  // own context, closed after the job); only here the area is bounded first.
  await page.setViewport({ ...viewport, width, height });
  return { screenshot: await png(page), fullPage: { pageWidth: size.width, pageHeight: size.height, clipped: size.width > width || size.height > height } };
}

async function png(page: Page): Promise<Uint8Array> {
  return new Uint8Array(await page.screenshot({ type: 'png', fullPage: false, captureBeyondViewport: false }));
}
