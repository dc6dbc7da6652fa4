/**
 * Browser engine factory (issue 4 "Browser pool"): puppeteer-core on Debian's Chromium, never a
 * downloaded browser. Nothing launches until the first render.
 */
import type { EngineOptions } from '../options.js';
import type { BrowserEngine, RenderRequest } from './types.js';
import { BrowserPool, poolSettingsFromEnv, type ContextProxy } from './pool.js';
import { precheck, renderPage } from './render.js';
import { startGuardProxy, type GuardProxy } from './guard-proxy.js';
import { SsrfGuard, guardPolicyFromEnv } from '../http/guard.js';
import { ServiceError, UpstreamError } from '../../errors.js';

/**
 * True when a render sets nothing on its page beyond what a warm context's reset undoes
 * (warm-contexts.ts), so it may run in, and leave, its key's warm context: no headers, cookies,
 * viewport, user agent, locale, blocked URLs, screenshot (a capture or a screenshot action) or scrolling.
 */
export function setsNothingOnPage(req: RenderRequest): boolean {
  return (
    !req.viewport &&
    !req.userAgent &&
    !Object.keys(req.headers ?? {}).length &&
    !req.cookies?.length &&
    !req.locale &&
    !req.blockUrls?.length &&
    !req.screenshot &&
    !req.autoScroll &&
    // A screenshot action resizes the viewport; the others act in the document, which the reset ends.
    !req.actions?.some((a) => a.type === 'screenshot') &&
    !req.proxy
  );
}

/** Creates the browser pool; the guard follows the same operator settings as the HTTP engine. */
export function createBrowserEngine(opts: EngineOptions): BrowserEngine & { close(): Promise<void> } {
  const guard = new SsrfGuard(guardPolicyFromEnv(opts.env));
  // Unless the operator opened the network, Chromium's only way out is the guard proxy, which
  // also covers what interception cannot see (WebSockets, workers, Chromium's own DNS answers).
  let proxy: Promise<GuardProxy> | undefined;
  const launchArgs = async () => {
    if (guard.policy.allowPrivate) return [];
    proxy ??= startGuardProxy(guard);
    const { url } = await proxy;
    return [`--proxy-server=${url}`, '--proxy-bypass-list=<-loopback>', '--force-webrtc-ip-handling-policy=disable_non_proxied_udp'];
  };
  const pool = new BrowserPool(poolSettingsFromEnv(opts.env, opts.dataDir), opts.log, launchArgs);
  // A job through an operator's proxy: a guard proxy of its own that forwards to it (the guard
  // decides as for any job, and it carries the proxy's credentials, which Chromium's proxy
  // setting cannot). Loopback goes through too.
  const chained = new Map<string, Promise<GuardProxy>>();
  const contextProxy = async (upstream: string): Promise<ContextProxy> => {
    let p = chained.get(upstream);
    if (!p) {
      p = startGuardProxy(guard, new URL(upstream));
      chained.set(upstream, p);
    }
    return { proxyServer: (await p).url, proxyBypassList: ['<-loopback>'] };
  };
  return {
    async render(req) {
      const target = await precheck(guard, req);
      try {
        const proxy = req.proxy ? await contextProxy(req.proxy) : undefined;
        return await pool.use((fresh) => renderPage(fresh, guard, req, target), req.signal, req.owner, { proxy, keep: setsNothingOnPage(req) });
      } catch (err) {
        // A crash or protocol error mid-job: the pool replaces the browser; the caller gets a 502.
        if (err instanceof ServiceError || req.signal?.aborted) throw err;
        throw new UpstreamError(`Failed to retrieve ${target.protocol}//${target.host}${target.pathname}: the browser failed while rendering the page.`, { cause: err });
      }
    },
    stats: () => ({ ...pool.counters, active: pool.running, queued: pool.queued }),
    async close() {
      await pool.close();
      await (await proxy?.catch(() => undefined))?.close();
      for (const p of chained.values()) await (await p.catch(() => undefined))?.close();
    },
  };
}
