/**
 * The page a render job gets: its own context, one tab and the byte meter counting what the tab
 * downloads. A file of its own because the pool and its warm-context keeper both use the shape.
 */
import type { BrowserContext, Page } from 'puppeteer-core';
import type { ByteMeter } from './byte-meter.js';

/** A context and its one tab, ready for a job. */
export interface FreshPage {
  context: BrowserContext;
  page: Page;
  /** Bytes the page has downloaded, counted from before its first navigation. */
  meter: ByteMeter;
}
