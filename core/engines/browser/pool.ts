/**
 * The browser pool (issue 4 "Browser pool", design: "Engines kept warm"): one Chromium launched
 * on first use and kept warm, a cap on concurrent pages with a bounded queue (429 when full),
 * recycled after N jobs or when it crashes, and closed with the engine.
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { BusyError } from '../../errors.js';
import type { PluginLogger } from '../../plugin/types.js';
import { attachByteMeter, type ByteMeter } from './byte-meter.js';
import { installFrameWatch } from './frame-watch.js';
import { FairQueue } from '../../util/fair-queue.js';
import { WarmContexts } from './warm-contexts.js';
import type { FreshPage } from './fresh-page.js';
import { browserEnv } from './browser-env.js';
import { browserJailSettings, leaseBrowserJail, type BrowserJailSettings } from './browser-jail.js';

export type { FreshPage } from './fresh-page.js';

/** A job waiting for a page slot, and whom it is for. */
interface Waiter {
  owner: string;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** The owner of jobs that name none (they keep first-come-first-served order among themselves). */
const NO_OWNER = '';

/** Pool settings (from the environment, see `poolSettingsFromEnv`). */
export interface PoolSettings {
  executablePath: string;
  maxPages: number;
  queueMax: number;
  recycleAfter: number;
  /** Contexts with a blank page kept ready, so a job does not wait for a renderer to start (0 = none). */
  spares: number;
  /** Where fresh `--user-data-dir` folders are made. */
  profileRoot: string;
  /** Its uid, memory cap and the service's variables it keeps (browser-jail.ts). */
  jail: BrowserJailSettings;
}

/**
 * Debian's Chromium builds, lightest first. `chromium-headless-shell` (the same source and
 * version as `chromium`, built as the classic headless browser) starts a page's renderer for
 * about a fifth of the CPU the full browser's headless mode spends, which is most of a warm job.
 */
// The shell's binary itself, not its /usr/bin wrapper script, so signals reach the browser.
export const DEBIAN_CHROMIUM_BINARIES = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'];

/** The configured binary, else the first Debian build that is installed. */
export function chromiumPath(env: Record<string, string | undefined>): string {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  return DEBIAN_CHROMIUM_BINARIES.find((p) => existsSync(p)) ?? DEBIAN_CHROMIUM_BINARIES[DEBIAN_CHROMIUM_BINARIES.length - 1]!;
}

/** Puppeteer's headless mode for a binary: the classic shell, or the full browser's headless mode. */
export function headlessModeFor(executablePath: string): 'shell' | true {
  return path.basename(executablePath).includes('headless-shell') ? 'shell' : true;
}

/** `CHROMIUM_PATH`, `BROWSER_MAX_PAGES`, `BROWSER_QUEUE_MAX`, `BROWSER_RECYCLE_AFTER`. */
export function poolSettingsFromEnv(env: Record<string, string | undefined>, dataDir: string): PoolSettings {
  const int = (v: string | undefined, d: number) => (v && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : d);
  return {
    executablePath: chromiumPath(env),
    maxPages: int(env.BROWSER_MAX_PAGES, 2),
    queueMax: int(env.BROWSER_QUEUE_MAX, 32),
    recycleAfter: int(env.BROWSER_RECYCLE_AFTER, 200),
    spares: env.BROWSER_SPARE_PAGES === '0' ? 0 : int(env.BROWSER_SPARE_PAGES, 1),
    profileRoot: dataDir ? path.join(dataDir, 'browser') : os.tmpdir(),
    jail: browserJailSettings(env),
  };
}

/** The viewport of a prepared page (a job may change it). */
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 };

/**
 * Flags for this machine: headless without GPU or sandbox (root in a container), and no
 * background networking — on a closed network Chromium otherwise retries Google hosts at every start.
 * Every page opens at the default viewport (the window size), so a job that keeps it needs no
 * emulation set up per page (issue 27: a round trip and browser work on every job).
 */
export const CHROMIUM_ARGS = [
  `--window-size=${DEFAULT_VIEWPORT.width},${DEFAULT_VIEWPORT.height}`,
  // A kept page's next navigation stays in its renderer (issue 27: a renderer start costs more
  // CPU than the page): no back-forward cache holding the previous document alive, no proactive
  // browsing-instance swap and no new frame host per document. Contexts never share a renderer.
  '--disable-features=BackForwardCache,ProactivelySwapBrowsingInstance,RenderDocument',
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--mute-audio',
  '--hide-scrollbars',
];

/** A finished job's context, closed when its timer fires. */
interface Finished {
  context: BrowserContext;
  inst: Instance;
  timer: NodeJS.Timeout;
}

/** How long a finished job's context waits before it is closed, in ms (see `BrowserPool.dispose`). */
const CLOSE_AFTER_MS = 100;
/** How often a browser's memory group is checked for an OOM kill, in ms. */
const MEMORY_WATCH_MS = 250;
/** How long a key's warm context is kept after its last call, in ms (see warm-contexts.ts). */
const KEEP_IDLE_MS = 60_000;

/** How a job may use the pool's warm contexts. */
export interface UseOptions {
  /** Through this proxy: a context made for the job, closed after it. */
  proxy?: ContextProxy;
  /**
   * The job sets nothing on its page that warm-contexts.ts does not reset (headers, cookies,
   * viewport, emulation…): it may run in its owner's warm context, and leave it warm for the next.
   */
  keep?: boolean;
}

interface Instance {
  browser: Browser;
  spares: Promise<FreshPage | undefined>[];
  profile: string;
  jobs: number;
  active: number;
  retired: boolean;
}

/** Launches Chromium once, hands out browsers to jobs under the page cap, recycles them. */
export class BrowserPool {
  private current: Instance | undefined;
  private launching: Promise<Instance> | undefined;
  private readonly all = new Set<Instance>();
  private active = 0;
  /** Finished jobs' contexts waiting to be closed, oldest first (see `dispose`). */
  private readonly finished: Finished[] = [];
  /** Waiting jobs, served owner by owner (issue 24: one key's backlog never holds up another's first job). */
  private readonly waiters = new FairQueue<Waiter>();
  private closed = false;
  /** Contexts kept per owner between its own jobs. */
  private readonly warm: WarmContexts<Instance>;
  /** Browsers launched, jobs run, and why browsers were replaced: their job limit (routine) or a crash. */
  readonly counters = { launches: 0, jobs: 0, recycles: 0, crashes: 0 };

  constructor(
    private readonly settings: PoolSettings,
    private readonly log: PluginLogger,
    /** Extra flags decided at launch time (the guard proxy's address). */
    private readonly launchArgs: () => Promise<string[]> = async () => [],
  ) {
    // As many warm contexts as pages at once, at least two: each holds a renderer's memory.
    this.warm = new WarmContexts(Math.max(2, settings.maxPages), KEEP_IDLE_MS);
  }

  get queued(): number {
    return this.waiters.length;
  }

  get running(): number {
    return this.active;
  }

  /**
   * Runs `job` with a fresh context and page once a page slot is free; the slot is released
   * afterwards. Starting a renderer is the slowest part of a warm job (hundreds of ms on a busy
   * machine), so a spare context is prepared in the background for the next job, once this one's
   * context is closed (see `dispose`). Slots go to
   * owners in turn. When `signal` fires (the caller hung up, its deadline passed) the job's
   * context is closed at once, which stops everything its page was doing, and the slot is free.
   */
  async use<T>(job: (fresh: FreshPage) => Promise<T>, signal?: AbortSignal, owner = NO_OWNER, opts: UseOptions = {}): Promise<T> {
    const { proxy } = opts;
    // Only a job with an owner (an API key) reuses or leaves a warm context, and never through a proxy.
    const keep = opts.keep === true && !proxy && owner !== NO_OWNER;
    await this.acquire(owner, signal);
    let inst: Instance | undefined;
    try {
      inst = await this.instance();
      inst.jobs++;
      inst.active++;
      this.counters.jobs++;
      if (inst.jobs >= this.settings.recycleAfter) {
        this.counters.recycles++;
        this.retire(inst);
      }
      // A job through a proxy needs a context made for it; the spares go direct.
      const warm = keep ? await this.warm.take(owner, inst) : undefined;
      const fresh = warm ?? (proxy ? await prepare(inst.browser, proxy) : await this.take(inst));
      let ok = false;
      try {
        let result: T;
        if (!signal) result = await job(fresh);
        else {
          signal.throwIfAborted();
          const work = job(fresh);
          work.catch(() => undefined);
          result = await Promise.race([work, aborted(signal)]);
        }
        ok = true;
        return result;
      } finally {
        // The slot is free as soon as the job's result is. On an abort or a failure the context
        // closes at once: that is what stops the page (its loads, scripts and waits end with it).
        if (ok && keep && !inst.retired) this.keepWarm(owner, fresh, inst, !warm);
        else this.dispose(fresh.context, inst, !ok);
      }
    } finally {
      if (inst) {
        inst.active--;
        if (inst.retired && inst.active === 0) void this.shutdown(inst);
      }
      this.release(owner);
    }
  }

  /**
   * Closes a finished job's context, then prepares the next spare (issue 27). After a job that
   * succeeded both wait `CLOSE_AFTER_MS`: tearing a renderer down and starting the next one take
   * more CPU than the page load itself, and done at once they competed with the caller's answer
   * (its formats, its response) for the same cores. No more than `maxPages` finished contexts
   * wait at a time (the oldest is closed first), and a context is never handed out again.
   */
  private dispose(context: BrowserContext, inst: Instance, now: boolean): void {
    if (now) return void this.closeContext(context, inst);
    const entry: Finished = { context, inst, timer: setTimeout(() => this.closeFinished(entry), CLOSE_AFTER_MS) };
    entry.timer.unref();
    this.finished.push(entry);
    while (this.finished.length > this.settings.maxPages) this.closeFinished(this.finished[0]!);
  }

  /**
   * Leaves a finished job's context warm for its owner's next job (warm-contexts.ts resets it),
   * after the same pause as `dispose`, so the reset does not compete with the caller's answer.
   * A job that used a spare has the spare replaced then too.
   */
  private keepWarm(owner: string, fresh: FreshPage, inst: Instance, usedSpare: boolean): void {
    setTimeout(() => {
      if (inst.retired || this.closed) return void fresh.context.close().catch(() => undefined);
      this.warm.keep(owner, fresh, inst);
      if (usedSpare) this.refill(inst);
    }, CLOSE_AFTER_MS).unref();
  }

  private closeFinished(entry: Finished): void {
    const i = this.finished.indexOf(entry);
    if (i < 0) return;
    this.finished.splice(i, 1);
    clearTimeout(entry.timer);
    void this.closeContext(entry.context, entry.inst);
  }

  private async closeContext(context: BrowserContext, inst: Instance): Promise<void> {
    await context.close().catch(() => undefined);
    this.refill(inst);
  }

  /**
   * A spare context if one is ready, else a new one. The spare taken is replaced once the job
   * that took it has ended (see `use`), so a job never shares the cores with its successor's
   * start-up; a spare is only ever handed to one job, and its context is closed after it.
   */
  private async take(inst: Instance): Promise<FreshPage> {
    while (inst.spares.length > 0) {
      const spare = await inst.spares.shift()!;
      if (spare && !spare.page.isClosed()) return spare;
    }
    return prepare(inst.browser);
  }

  private refill(inst: Instance): void {
    while (!inst.retired && inst.browser.connected && inst.spares.length < this.settings.spares) {
      inst.spares.push(prepare(inst.browser).catch(() => undefined));
    }
  }

  private acquire(owner: string, signal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new BusyError('The browser is shutting down. Please retry.'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.active >= this.settings.maxPages && this.waiters.length >= this.settings.queueMax) {
      return Promise.reject(new BusyError('Too many pages are being rendered right now. Please try again later.'));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { owner, resolve, reject };
      this.waiters.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          if (this.waiters.remove(waiter)) reject(signal.reason);
        },
        { once: true },
      );
      this.drain();
    });
  }

  /** Hands free slots to waiting jobs, the owner holding fewest slots first. */
  private drain(): void {
    while (this.active < this.settings.maxPages) {
      const next = this.waiters.take();
      if (!next) return;
      this.active++;
      next.resolve();
    }
  }

  private release(owner: string): void {
    this.waiters.done(owner);
    this.active--;
    this.drain();
  }

  /** The warm browser, launching one when there is none (first use, crash or recycle). */
  private async instance(): Promise<Instance> {
    if (this.current && !this.current.retired && this.current.browser.connected) return this.current;
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<Instance> {
    // Its own uid and memory group when the service is root (browser-jail.ts), released once it has exited.
    const jail = leaseBrowserJail(this.settings.jail, this.settings.executablePath, this.settings.profileRoot, this.log);
    let profile: string;
    let browser: Browser;
    try {
      await fs.mkdir(jail.profileRoot, { recursive: true });
      profile = await fs.mkdtemp(path.join(jail.profileRoot, 'chromium-'));
      jail.own(profile);
    } catch (err) {
      await jail.release();
      throw err;
    }
    try {
      // Loaded at the first launch, not at boot: puppeteer-core is ~150 modules (about 1 s of CPU
      // under tsx) that an instance which never renders a page does not need.
      const { default: puppeteer } = await import('puppeteer-core');
      browser = await puppeteer.launch({
        executablePath: jail.executablePath,
        headless: headlessModeFor(this.settings.executablePath),
        args: [...CHROMIUM_ARGS, ...(await this.launchArgs())],
        userDataDir: profile,
        // Never the service's environment (ADMIN_TOKEN, provider keys): HOME is the profile.
        env: browserEnv(this.settings.jail.envVars, profile),
        pipe: true,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        protocolTimeout: 30_000,
        defaultViewport: null,
      });
    } catch (err) {
      await removeProfile(profile);
      await jail.release();
      throw err;
    }
    this.counters.launches++;
    // Puppeteer stops listening to the browser's pipes once its connection is closed. A browser
    // that then dies with commands it has not read yet (killed at its memory cap while we close
    // it) resets them: a read ECONNRESET that, with no listener, would crash the whole service.
    for (const pipe of browser.process()?.stdio ?? []) {
      pipe?.on('error', (err) => this.log.debug({ profile, err: String(err) }, 'chromium pipe reset by its dying end'));
    }
    const inst: Instance = { browser, profile, spares: [], jobs: 0, active: 0, retired: false };
    this.all.add(inst);
    browser.on('disconnected', () => {
      void jail.release();
      // A crash: the next job launches a fresh browser; the profile folder is removed.
      if (inst.retired) return;
      this.log.warn({ profile }, 'chromium disconnected; a new one starts on the next job');
      this.counters.crashes++;
      inst.retired = true;
      if (this.current === inst) this.current = undefined;
      this.warm.dropInstance(inst);
      this.all.delete(inst);
      void removeProfile(profile);
    });
    // A process of this browser killed at its memory cap (a renderer, usually): that browser is
    // killed and replaced, so its jobs fail at once (502, free) instead of waiting out their page
    // timeout on a renderer that is gone. The group's OOM count is read a few times a second while
    // a job runs in this browser (an idle one reads nothing; a kill meanwhile is seen once a job starts).
    const memoryWatch = jail.capped
      ? setInterval(() => {
          if (inst.retired || inst.active === 0 || !jail.overMemory()) return;
          clearInterval(memoryWatch);
          this.log.warn({ profile, memoryMb: this.settings.jail.memoryBytes / 1024 / 1024 }, 'chromium passed BROWSER_MEMORY_MB; a new one starts on the next job');
          this.counters.crashes++;
          browser.process()?.kill('SIGKILL');
          void this.shutdown(inst);
        }, MEMORY_WATCH_MS).unref()
      : undefined;
    browser.on('disconnected', () => clearInterval(memoryWatch));
    if (this.closed) {
      await this.shutdown(inst);
      throw new BusyError('The browser is shutting down. Please retry.');
    }
    this.current = inst;
    this.refill(inst);
    return inst;
  }

  private retire(inst: Instance): void {
    inst.retired = true;
    if (this.current === inst) this.current = undefined;
    this.warm.dropInstance(inst);
    for (const spare of inst.spares.splice(0)) void spare.then((s) => s?.context.close().catch(() => undefined));
  }

  private async shutdown(inst: Instance): Promise<void> {
    this.retire(inst);
    this.all.delete(inst);
    if (this.current === inst) this.current = undefined;
    await inst.browser.close().catch(() => inst.browser.process()?.kill('SIGKILL'));
    await removeProfile(inst.profile);
  }

  /** Stops every browser and refuses queued jobs. */
  async close(): Promise<void> {
    this.closed = true;
    this.warm.clear();
    for (const f of this.finished.splice(0)) clearTimeout(f.timer);
    for (const w of this.waiters.drain()) w.reject(new BusyError('The browser is shutting down. Please retry.'));
    const pending = this.launching?.catch(() => undefined);
    await pending;
    await Promise.allSettled([...this.all].map((i) => this.shutdown(i)));
  }
}

/** Rejects with the signal's reason once it fires. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}

/** Where a context sends its traffic (Chromium's per-context proxy settings). */
export interface ContextProxy {
  proxyServer: string;
  proxyBypassList?: string[];
}

/** A new incognito-like context with one blank page at the default viewport. */
async function prepare(browser: Browser, proxy?: ContextProxy): Promise<FreshPage> {
  const context = await browser.createBrowserContext(proxy ?? {});
  try {
    const page = await context.newPage();
    // The window size is the default viewport already (see CHROMIUM_ARGS). The page's requests
    // (its workers' too: puppeteer applies the setting to their sessions) never take an answer
    // from the HTTP cache, so no call is answered from an earlier call's responses and a warm
    // context has no cache to clear between calls (issue 27: clearing it cost ~10 ms of browser
    // CPU per call). Within one document a resource used twice is still fetched once.
    // The frame watch (frame-watch.ts) runs in every document the page loads from now on, so a
    // call's DOM read waits for a frame only when the page has something waiting for one.
    const [meter] = await Promise.all([attachByteMeter(page), page.setCacheEnabled(false), installFrameWatch(page)]);
    return { context, page, meter };
  } catch (err) {
    await context.close().catch(() => undefined);
    throw err;
  }
}

/** Chromium may still be flushing its profile as it exits; retry, and never fail a job over it. */
async function removeProfile(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }).catch(() => undefined);
}
