/**
 * `node --no-node-snapshot --import tsx bench/scrape-reset.ts` (issue 27, CPU per page): what the
 * warm context's reset (warm-contexts.ts) costs each process, next to the rest of a pool call's
 * browser work. One browser, one context per variant, the variants interleaved call by call (so
 * they share the machine's load), each call followed by a pause whose CPU is charged to it:
 *
 * - `floor`: a plain page reused (`goto`, `content()`), as bench/scrape.ts's floor;
 * - `no reset`: a pool page (byte meter, cache off, frame watch) read as a job reads it;
 * - `blank`: the same, then sent to about:blank as the reset does;
 * - `reset`: the same, then the whole reset (about:blank, history, storage, cookies).
 *
 * Ways of ending the document other than puppeteer's `goto('about:blank')`, measured for issue 27
 * and shown when named in BENCH_VARIANTS (comma-separated; the four above by default):
 *
 * - `cdp blank`: the whole reset, the navigation sent as CDP `Page.navigate` and awaited by
 *   `Page.frameStoppedLoading`, without puppeteer's navigation watcher;
 * - `scripts off`: the whole reset, with the scripts run in every new document (the frame watch,
 *   puppeteer's utility world) removed for the about:blank document and added back after it;
 * - `new tab`: no reset navigation: the tab is closed and a new one opened in the same context
 *   (its history, storage and cookies cleared as in `reset`).
 *
 * BENCH_RUNS calls per variant (default 40); BENCH_EXTRA_ARGS adds Chromium flags (space-separated).
 */
import os from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import puppeteer, { type CDPSession, type Page } from 'puppeteer-core';
import { UTILITY_WORLD_NAME } from 'puppeteer-core/internal/common/util.js';
import { CHROMIUM_ARGS, chromiumPath, headlessModeFor } from '../core/engines/browser/pool.js';
import { attachByteMeter } from '../core/engines/browser/byte-meter.js';
import { FRAME_WATCH_SCRIPT, installFrameWatch } from '../core/engines/browser/frame-watch.js';
import { readDom } from '../core/engines/browser/read-dom.js';
import { formatRoles, ProcessTree, type CpuSnapshot } from './cpu.js';
import { clearWhatTheJobLeft } from '../core/engines/browser/warm-contexts.js';
import { serveBenchPage } from './bench-page.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const PAUSE_MS = 300;

const site = await serveBenchPage();
const url = site.url;
const exe = chromiumPath(process.env);
const profile = await mkdtemp(join(os.tmpdir(), 'bench-reset-'));
const extra = (process.env.BENCH_EXTRA_ARGS ?? '').split(' ').filter(Boolean);
const browser = await puppeteer.launch({ executablePath: exe, headless: headlessModeFor(exe), args: [...CHROMIUM_ARGS, ...extra], userDataDir: profile, pipe: true, defaultViewport: null });

/** A page as the pool prepares one (pool.ts `prepare`). */
async function poolPage(context?: import('puppeteer-core').BrowserContext) {
  context ??= await browser.createBrowserContext();
  const page = await context.newPage();
  const [meter] = await Promise.all([attachByteMeter(page), page.setCacheEnabled(false), installFrameWatch(page)]);
  return { context, page, meter };
}
type PoolPage = Awaited<ReturnType<typeof poolPage>>;

/** Puppeteer's own session of the page (the one with Page and Runtime enabled). */
const clientOf = (page: Page) => (page as unknown as { _client(): CDPSession })._client();

/** What the reset clears once the document has ended (warm-contexts.ts). */
async function clear(p: PoolPage): Promise<void> {
  await clearWhatTheJobLeft(p.meter);
}

/** The scripts every new document of `page` runs, by puppeteer's session: removed, then added back once `during` is done. */
async function withoutNewDocumentScripts(page: Page, ids: string[], during: () => Promise<void>): Promise<string[]> {
  const client = clientOf(page);
  await Promise.all(ids.map((identifier) => client.send('Page.removeScriptToEvaluateOnNewDocument', { identifier })));
  await during();
  const added = await Promise.all([
    client.send('Page.addScriptToEvaluateOnNewDocument', { source: FRAME_WATCH_SCRIPT }),
    client.send('Page.addScriptToEvaluateOnNewDocument', { source: '//# sourceURL=pptr:internal', worldName: UTILITY_WORLD_NAME }),
  ]);
  return added.map((a) => a.identifier);
}

/** Ends the page's document another way than the pool does, then clears as the pool does; may hand back a new page. */
const ENDS: Record<string, (p: PoolPage, state: { scripts: string[] }) => Promise<PoolPage | void>> = {
  'no reset': async () => undefined,
  blank: async (p) => void (await p.page.goto('about:blank')),
  reset: async (p) => {
    await p.page.goto('about:blank');
    await clear(p);
  },
  'cdp blank': async (p) => {
    const client = clientOf(p.page);
    const stopped = new Promise((r) => client.once('Page.frameStoppedLoading', r));
    await client.send('Page.navigate', { url: 'about:blank' });
    await stopped;
    await clear(p);
  },
  'scripts off': async (p, state) => {
    state.scripts = await withoutNewDocumentScripts(p.page, state.scripts, async () => void (await p.page.goto('about:blank')));
    await clear(p);
  },
  'new tab': async (p) => {
    const next = await poolPage(p.context);
    await p.page.close();
    await clear(next);
    return next;
  },
};

const chosen = (process.env.BENCH_VARIANTS ?? 'no reset,blank,reset').split(',').map((v) => v.trim());
for (const name of chosen) if (!ENDS[name]) throw new Error(`unknown variant '${name}': ${Object.keys(ENDS).join(', ')}`);
const variants: { name: string; run: () => Promise<void> }[] = [];
{
  const page = await (await browser.createBrowserContext()).newPage();
  variants.push({ name: 'floor', run: async () => void (await page.goto(url, { waitUntil: 'load' }), await page.content()) });
}
for (const name of chosen) {
  let p = await poolPage();
  // The ids a new page's new-document scripts get: puppeteer's utility world first, then the frame watch.
  const state = { scripts: ['1', '2'] };
  variants.push({
    name,
    run: async () => {
      await p.page.goto(url, { waitUntil: 'load' });
      const dom = await readDom(p.page, { load: 5000, refresh: 5000, frame: true });
      if (!dom.html.includes('Rendered')) throw new Error('the page did not render');
      p = (await ENDS[name]!(p, state)) ?? p;
      p.meter.reset();
    },
  });
}

const tree = new ProcessTree(process.pid);
// This process's threads together: only the browser's processes are told apart here.
const roles = (): CpuSnapshot => {
  const out: CpuSnapshot = new Map();
  for (const [role, us] of tree.cpuByRole(() => 'chromium')) {
    const key = role.startsWith('node:') ? 'node' : role;
    out.set(key, (out.get(key) ?? 0) + us);
  }
  return out;
};
const sums = variants.map((): CpuSnapshot => new Map());
try {
  for (const v of variants) for (let i = 0; i < 3; i++) await v.run();
  for (let i = 0; i < RUNS; i++) {
    for (const [k, v] of variants.entries()) {
      const before = roles();
      await v.run();
      await new Promise((r) => setTimeout(r, PAUSE_MS));
      for (const [role, us] of roles()) sums[k]!.set(role, (sums[k]!.get(role) ?? 0) + us - (before.get(role) ?? 0));
    }
  }
  console.log(`reset cost on ${os.cpus().length} cores (load average ${os.loadavg()[0]!.toFixed(1)}), ${RUNS} calls per variant, CPU per call (ms) with a ${PAUSE_MS} ms pause${extra.length ? `, extra flags ${extra.join(' ')}` : ''}:`);
  for (const [k, v] of variants.entries()) {
    const total = [...sums[k]!.values()].reduce((a, b) => a + b, 0) / RUNS / 1000;
    console.log(`${v.name.padEnd(11)} total ${total.toFixed(1).padStart(6)}   ${formatRoles(new Map(), sums[k]!, RUNS)}`);
  }
} finally {
  await browser.close();
  site.close();
  await rm(profile, { recursive: true, force: true });
}
