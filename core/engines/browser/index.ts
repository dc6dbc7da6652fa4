/**
 * Browser engine factory (issue 4 "Browser pool"): puppeteer-core on Debian's Chromium, never a
 * downloaded browser. Nothing launches until the first render.
 */
import type { EngineOptions } from '../options.js';
import type { BrowserEngine } from './types.js';
import { BrowserPool, poolSettingsFromEnv } from './pool.js';
import { renderPage } from './render.js';
import { SsrfGuard, guardPolicyFromEnv } from '../http/guard.js';

/** Creates the browser pool; the guard follows the same operator settings as the HTTP engine. */
export function createBrowserEngine(opts: EngineOptions): BrowserEngine & { close(): Promise<void> } {
  const pool = new BrowserPool(poolSettingsFromEnv(opts.env, opts.dataDir), opts.log);
  const guard = new SsrfGuard(guardPolicyFromEnv(opts.env));
  return {
    render: (req) => pool.use((browser) => renderPage(browser, guard, req), req.signal),
    stats: () => ({ launches: pool.counters.launches, jobs: pool.counters.jobs, active: pool.running, queued: pool.queued }),
    close: () => pool.close(),
  };
}
