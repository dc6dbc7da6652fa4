/** Browser engine factory (the web lane replaces this stub). */
import type { EngineOptions } from '../options.js';
import type { BrowserEngine } from './types.js';

/** Creates the browser pool. */
export function createBrowserEngine(_opts: EngineOptions): BrowserEngine & { close(): Promise<void> } {
  return { kind: 'browser', async close() {} };
}
