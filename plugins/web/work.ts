/**
 * The web plugin's page work (page-work.ts), handed to the compute engine at setup: the plugin
 * names its own module by URL, and every call runs in a worker thread, never on the main thread.
 */
import type { ComputeWork, Engines, RunContext } from '../../core/sdk.js';
import type { FetchedPage } from './fetch-page.js';
import type * as PageWork from './page-work.js';
import { RobotsCache } from './robots.js';

/** The plugin's state, made by `setup`. */
export interface WebState {
  /** page-work.ts, registered with the compute engine. */
  pages: ComputeWork<typeof PageWork>;
  /** robots.txt per origin for the steps of crawl jobs (each page is its own step). */
  robots: RobotsCache;
}

/** Registers page-work.ts with the compute engine (resolved here, beside this file, in the sources and in the build alike). */
export function registerPageWork(engines: Pick<Engines, 'compute'>): WebState {
  return { pages: engines.compute.register<typeof PageWork>(new URL('./page-work.js', import.meta.url)), robots: new RobotsCache() };
}

/** What a worker needs of a fetched HTML page. */
export function pageData(page: FetchedPage): PageWork.PageData {
  return { html: page.body, url: page.url, status: page.status, contentType: page.contentType, contentLanguage: page.contentLanguage };
}

/** The run context of the web plugin's endpoints. */
export type WebContext = RunContext<WebState>;
