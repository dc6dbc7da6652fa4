/**
 * `node --no-node-snapshot --import tsx bench/scrape-frames.ts` (issue 27, CPU per page): what a
 * pool page's frames cost Chromium, and what a page loses without them. Measured for issue 27
 * and not adopted (see the findings below); kept so the next attempt starts from the figures.
 *
 * The headless shell can leave every frame of a page to its client (begin-frame control: the
 * FRAME_CONTROL flags below, frames sent with CDP `HeadlessExperimental.beginFrame`). A page then
 * paints nothing, runs no animation-frame callbacks and computes no observers until it is sent a
 * frame. One browser per variant (the flags differ), each with one pool-like page (byte meter,
 * cache off, frame watch) loading the bench page, reading it as a job does and resetting it as
 * a warm context is reset (about:blank, then the clearing); the variants interleaved call by
 * call, each call followed by a pause whose CPU is charged to it. BENCH_VARIANTS (comma-separated)
 * picks them, BENCH_RUNS sets the calls per variant:
 *
 * - `native`: Chromium paces the page's frames (the pool's CHROMIUM_ARGS);
 * - `none`: frame control, no frame ever sent (the bench page's read needs none);
 * - `pump`: frame control, frames sent at 60 Hz through the job (load and read), none during the reset;
 * - `hidden`: native, the page minimised (hidden) before its reset and shown again before its next job;
 * - `idle-native`, `idle-pump`: a loaded page left alone for 1 s, frames paced by Chromium or sent at 60 Hz.
 *
 * Before the runs it prints what a page does within 300 ms of its load with Chromium's frames and
 * without any: an idle callback, a CSS transition's end, a lazy image in view.
 *
 * Findings (2026-11-28 evening, 2 cores, CPU per call in ms, all processes, 40 calls per variant):
 * - No frames at all is ~7–10 ms cheaper: native 42.0 / 48.5 / 49.3 / 47.0 against 33.8 / 38.5 /
 *   44.8 / 39.8 (load 1.8 / 7.4 / 3.8 / 1.4), mostly the renderer's compositor and the GPU process (3–4.5 ms there
 *   alone). Through the service (bench/scrape.ts, with an engine change since left out of the
 *   tree for the reason below, which sent frames only where a step needed them: actions, screenshots, the caller's waits, and the read when the frame watch saw
 *   something pending), four interleaved pairs at load 0.7–3.9: CPU per page 49 / 56 / 53 ms
 *   against 62 / 60 / 62 / 71 without (pool − floor 8–9 against 16–22 ms; the GPU process's
 *   4.2–4.7 ms and ~5 ms of the renderer's gone); p50 1.19–1.27× the floor against 1.31–1.47×;
 *   5 actions +25.2–26.9 against +24.1–27.1 ms. Every web test run against it passed
 *   (web-browser*, screenshot, crawler-screenshot, web-scrape-options/-gaps/-holes,
 *   web-audit-headers, core/engines/browser/browser.test.ts).
 * - But a page that gets no frames loses more than pixels (the probe above): requestIdleCallback
 *   never runs (presumably no idle period starts while the renderer waits for the frame its
 *   first paint asked for), CSS transitions and animations neither advance nor end, and lazy
 *   images in view never start loading (so a screenshot could show them missing). The web tests did not catch it (their pages use
 *   animation frames, observers and scroll listeners, which the read's frame covers); scripts
 *   that render in an idle callback or on a transition's end would lose content.
 * - Sending frames as a visible page gets them gives most of it back: `pump` 44.5 and 42.3
 *   against native 48.5 and 47.0.
 *   Each frame sent costs ~2.5 ms even when nothing changed (idle-pump ~150 ms per second, of
 *   which this process ~65; idle-native 0), where Chromium's own pacing sends none to a page that
 *   needs none, so a long wait would cost far more than today.
 * - Hiding the page during the reset (so its blank document is not painted) costs more than the
 *   paint: hidden 49.8 against native 42.0.
 * - One frame sent after the load, drawn or with `noDisplayUpdates` (43.8 / 52.3 and 39.5 / 47.3
 *   against native 49.3 / 57.5 and no frames 44.8 / 44.0 in the same runs), costs about what it
 *   draws (whether such a frame lets idle callbacks run was not measured).
 */
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import puppeteer, { type Browser, type CDPSession, type Page } from 'puppeteer-core';
import { CHROMIUM_ARGS, chromiumPath, headlessModeFor } from '../core/engines/browser/pool.js';
import { attachByteMeter } from '../core/engines/browser/byte-meter.js';
import { installFrameWatch } from '../core/engines/browser/frame-watch.js';
import { readDom } from '../core/engines/browser/read-dom.js';
import { clearWhatTheJobLeft } from '../core/engines/browser/warm-contexts.js';
import { formatRoles, ProcessTree, type CpuSnapshot } from './cpu.js';
import { serveBenchPage } from './bench-page.js';

/** Every frame of every page is the client's to send; a frame sent runs every compositor stage before it is drawn. */
const FRAME_CONTROL = ['--enable-begin-frame-control', '--run-all-compositor-stages-before-draw'];
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const PAUSE_MS = 300;
/** How long the idle variants leave their page alone, in ms. */
const IDLE_MS = 1000;
const FRAME_MS = 1000 / 60;

interface Variant {
  controlled: boolean;
  /** Frames at 60 Hz through the job. */
  pump?: boolean;
  /** Minimised before the reset, shown again before the next job. */
  hide?: boolean;
  /** Left alone loaded instead of running a job. */
  idle?: boolean;
}
const VARIANTS: Record<string, Variant> = {
  native: { controlled: false },
  none: { controlled: true },
  pump: { controlled: true, pump: true },
  hidden: { controlled: false, hide: true },
  'idle-native': { controlled: false, idle: true },
  'idle-pump': { controlled: true, pump: true, idle: true },
};
const chosen = (process.env.BENCH_VARIANTS ?? 'native,none,pump').split(',').map((v) => v.trim());
for (const name of chosen) if (!VARIANTS[name]) throw new Error(`unknown variant '${name}': ${Object.keys(VARIANTS).join(', ')}`);

const exe = chromiumPath(process.env);
if (headlessModeFor(exe) !== 'shell') throw new Error(`frame control needs the headless shell, not ${exe}`);
const launch = (name: string, controlled: boolean) =>
  mkdtemp(join(os.tmpdir(), `bench-frames-${name}-`)).then(async (profile) => ({
    profile,
    browser: await puppeteer.launch({ executablePath: exe, headless: 'shell', args: [...CHROMIUM_ARGS, ...(controlled ? FRAME_CONTROL : [])], userDataDir: profile, pipe: true, defaultViewport: null }),
  }));

/** Runs `work` with `session`'s page sent a frame at once and then every 1/60 s until it is done. */
async function withFrames<T>(session: CDPSession, work: () => Promise<T>): Promise<T> {
  let on = true;
  const pump = (async () => {
    while (on) {
      const t = performance.now();
      await session.send('HeadlessExperimental.beginFrame', { interval: FRAME_MS }).catch(() => undefined);
      const left = FRAME_MS - (performance.now() - t);
      if (on && left > 0) await new Promise((r) => setTimeout(r, left));
    }
  })();
  try {
    return await work();
  } finally {
    on = false;
    await pump;
  }
}

/** What a page does within 300 ms of its load, with Chromium's frames and without any. */
async function probe(): Promise<void> {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const page = `<!doctype html><body><img id="lazy" loading="lazy" src="/1.png" width="10" height="10"><p id="t" style="transition: opacity 50ms">fade</p><script>
window.idle = false; requestIdleCallback(() => { window.idle = true; });
window.ended = false; document.getElementById('t').addEventListener('transitionend', () => { window.ended = true; });
setTimeout(() => { document.getElementById('t').style.opacity = '0.5'; }, 10);
</script></body>`;
  const site = http.createServer((req, res) => {
    const image = req.url === '/1.png';
    res.writeHead(200, { 'content-type': image ? 'image/png' : 'text/html' });
    res.end(image ? png : page);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  try {
    for (const controlled of [false, true]) {
      const { browser, profile } = await launch(controlled ? 'probe-none' : 'probe-native', controlled);
      try {
        const p = await (await browser.createBrowserContext()).newPage();
        await p.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`, { waitUntil: 'load' });
        await new Promise((r) => setTimeout(r, 300));
        const seen = await p.evaluate(() => ({
          idleCallback: (window as unknown as { idle: boolean }).idle,
          transitionEnded: (window as unknown as { ended: boolean }).ended,
          lazyImageLoaded: (document.getElementById('lazy') as HTMLImageElement).naturalWidth > 0,
        }));
        console.log(`${controlled ? 'no frames' : 'Chromium frames'}: ${JSON.stringify(seen)}`);
      } finally {
        await browser.close();
        await rm(profile, { recursive: true, force: true });
      }
    }
  } finally {
    site.closeAllConnections();
    site.close();
  }
}

interface Run {
  name: string;
  browser: Browser;
  profile: string;
  run: () => Promise<void>;
}

async function setUp(name: string, v: Variant, url: string): Promise<Run> {
  const { browser, profile } = await launch(name, v.controlled);
  const page: Page = await (await browser.createBrowserContext()).newPage();
  const [meter] = await Promise.all([attachByteMeter(page), page.setCacheEnabled(false), installFrameWatch(page)]);
  const windowState = async (state: 'normal' | 'minimized') => {
    const { windowId } = await meter.session.send('Browser.getWindowForTarget');
    await meter.session.send('Browser.setWindowBounds', { windowId, bounds: { windowState: state } });
  };
  const job = async () => {
    await page.goto(url, { waitUntil: 'load' });
    const dom = await readDom(page, { load: 5000, refresh: 5000, frame: true });
    if (!dom.html.includes('Rendered')) throw new Error('the page did not render');
  };
  const framed = <T>(work: () => Promise<T>) => (v.pump ? withFrames(meter.session, work) : work());
  const run = v.idle
    ? () => framed(() => new Promise<void>((r) => setTimeout(r, IDLE_MS)))
    : async () => {
        if (v.hide) await windowState('normal');
        await framed(job);
        if (v.hide) await windowState('minimized');
        await page.goto('about:blank');
        await clearWhatTheJobLeft(meter);
      };
  // The idle variants wait on a loaded page.
  if (v.idle) await framed(job);
  return { name, browser, profile, run };
}

await probe();
const site = await serveBenchPage();
const runs: Run[] = [];
for (const name of chosen) runs.push(await setUp(name, VARIANTS[name]!, site.url));

const tree = new ProcessTree(process.pid);
// This process's threads together; each browser's processes by the variant its profile names.
const roles = (): CpuSnapshot => {
  const out: CpuSnapshot = new Map();
  for (const [role, us] of tree.cpuByRole((dir) => /bench-frames-(.+)-\w{6}$/.exec(dir)?.[1] ?? '?')) {
    const key = role.startsWith('node:') ? 'node' : role;
    out.set(key, (out.get(key) ?? 0) + us);
  }
  return out;
};
const sums = runs.map((): CpuSnapshot => new Map());
const wall = runs.map((): number[] => []);
try {
  for (const r of runs) for (let i = 0; i < 3; i++) await r.run();
  for (let i = 0; i < RUNS; i++) {
    for (const [k, r] of runs.entries()) {
      const before = roles();
      const t = performance.now();
      await r.run();
      wall[k]!.push(performance.now() - t);
      await new Promise((res) => setTimeout(res, PAUSE_MS));
      for (const [role, us] of roles()) sums[k]!.set(role, (sums[k]!.get(role) ?? 0) + us - (before.get(role) ?? 0));
    }
  }
  console.log(`frame pacing on ${os.cpus().length} cores (load average ${os.loadavg()[0]!.toFixed(1)}), ${RUNS} calls per variant, CPU per call (ms) with a ${PAUSE_MS} ms pause:`);
  for (const [k, r] of runs.entries()) {
    const total = [...sums[k]!.values()].reduce((a, b) => a + b, 0) / RUNS / 1000;
    const p50 = [...wall[k]!].sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
    console.log(`${r.name.padEnd(12)} total ${total.toFixed(1).padStart(6)}   p50 ${p50.toFixed(1).padStart(6)} ms   ${formatRoles(new Map(), sums[k]!, RUNS)}`);
  }
} finally {
  for (const r of runs) await r.browser.close();
  for (const r of runs) await rm(r.profile, { recursive: true, force: true });
  site.close();
}
