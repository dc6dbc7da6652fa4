/**
 * Browser engine factory (issue 4 "Browser pool"): puppeteer-core on Debian's Chromium, never a
 * downloaded browser. Nothing launches until the first render.
 */
import type { EngineOptions } from '../options.js';
import type { BrowserEngine, RenderRequest } from './types.js';
import { BrowserPool, poolSettingsFromEnv, type ContextProxy } from './pool.js';
import { precheck, renderPage } from './render.js';
import { startGuardProxy, type GuardProxy } from './guard-proxy.js';
import { BrowserExits, EXIT_SLOTS } from './browser-exits.js';
import { browserJailed } from './browser-jail.js';
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
  const settings = poolSettingsFromEnv(opts.env, opts.dataDir);
  // Each jailed browser reaches the guard proxies through sockets in its jail (browser-exits.ts).
  const exits = new BrowserExits();
  settings.jail.exits = exits;
  /** Whether browsers run in their jail, where the exits are the only network (decided once, at first use). */
  const jailed = () => (exits.jailed = browserJailed(settings.jail, opts.log));
  // Chromium's only way out is the guard proxy, which also covers what interception cannot see
  // (WebSockets, workers, Chromium's own DNS answers). A jailed browser has no other network;
  // one on the host's network (no jail could be made here) goes direct only if the operator
  // opened the private network.
  let proxy: Promise<GuardProxy> | undefined;
  const launchArgs = async () => {
    if (!jailed() && guard.policy.allowPrivate) return [];
    proxy ??= startGuardProxy(guard).then((p) => (exits.set(0, p), p));
    const url = exits.url(0, await proxy);
    return [`--proxy-server=${url}`, '--proxy-bypass-list=<-loopback>', '--force-webrtc-ip-handling-policy=disable_non_proxied_udp'];
  };
  const pool = new BrowserPool(settings, opts.log, launchArgs);
  // A job through an operator's proxy: a guard proxy of its own that forwards to it (the guard
  // decides as for any job, and it carries the proxy's credentials, which Chromium's proxy
  // setting cannot). Loopback goes through too. Each takes an exit slot after the direct one's;
  // a new operator proxy past the slots takes the oldest one's slot (its proxy is closed).
  const chained = new Map<string, { slot: number; proxy: Promise<GuardProxy> }>();
  const contextProxy = async (upstream: string): Promise<ContextProxy> => {
    let entry = chained.get(upstream);
    if (!entry) {
      const used = new Set([...chained.values()].map((e) => e.slot));
      let slot = Array.from({ length: EXIT_SLOTS - 1 }, (_, i) => i + 1).find((n) => !used.has(n));
      if (slot === undefined) {
        const [oldest, old] = chained.entries().next().value!;
        chained.delete(oldest);
        slot = old.slot;
        void old.proxy.then((p) => p.close(), () => undefined);
      }
      const at = slot;
      entry = { slot: at, proxy: startGuardProxy(guard, new URL(upstream)).then((p) => (exits.set(at, p), p)) };
      chained.set(upstream, entry);
    }
    const p = await entry.proxy;
    jailed();
    return { proxyServer: exits.url(entry.slot, p), proxyBypassList: ['<-loopback>'] };
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
      for (const e of chained.values()) await (await e.proxy.catch(() => undefined))?.close();
    },
  };
}
