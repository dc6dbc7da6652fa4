/**
 * `node --no-node-snapshot --import tsx bench/scrape.ts` (issue 4 "Benchmark"): p50/p95 of
 * `POST /api/v1/scrape` with `renderJs:true` on a local page through the warm browser pool,
 * against launching Chromium for every request as naive services do (same page, same load wait,
 * same markdown conversion, measured in-process so the baseline pays no HTTP or ledger cost);
 * then `renderJs:false` pages per second through the API. Prints the ratios; the target is a p50
 * at least 5× faster than launch-per-request. BENCH_RUNS sets the warm sample size.
 *
 * Issue 27 adds a floor measured in the same run: one warm page of the same binary reused with no
 * isolation at all (no fresh context, no HTTP, no ledger), the physical limit of this machine.
 * Targets: the API's p50 at most 1.5× that floor, at most 80 ms of CPU per page (all processes),
 * each call still in its own browser context; and a call with 5 actions adding no more than the
 * actions' own waits + 20 ms to the same call without them. Each measured call is followed by
 * a pause (BENCH_IDLE_MS) whose CPU is charged to it: the pool's background work for that call
 * (closing its context, preparing the next) is counted, and the next call starts on an idle pool.
 * Both series' CPU is also printed by process: this process's threads (the service runs in it,
 * so its idle work during the pause is in both series) and each browser's processes by type.
 * A third window of the same pause with no call at all measures the idle background (the
 * service's timers and job polling, both browsers at rest), which both series carry; it is
 * printed beside them, so what a page itself costs can be told from what the process costs idle.
 * BENCH_COLD sets the launch-per-request samples (0 skips them), BENCH_PLAIN the
 * `renderJs:false` requests (0 skips them), BENCH_WARMUP the calls made before any is measured.
 *
 * This process's threads all carry the name `node`, so they are told apart by when they started
 * (issue 27: which of them a page's CPU goes to): `node:v8-helpers` started before the service
 * (V8's platform threads, which compile hot functions with TurboFan and do the concurrent and
 * parallel parts of garbage collection for every isolate of the process; libuv's pool too when
 * the module loading started it), `node:service-threads`
 * started by the service (its database thread), `node:call-threads` started by its first calls
 * (the compute workers that turn pages into markdown).
 */
import os from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { startService } from '../server/start.js';
import { CHROMIUM_ARGS, chromiumPath, headlessModeFor } from '../core/engines/browser/pool.js';
import { ParsedPage, toMarkdown } from '../plugins/web/page-content.js';
import { loadHtmlParser } from '../plugins/web/html-parser.js';
import { createBenchKey } from './load.js';
import { formatRoles, ProcessTree, type CpuSnapshot } from './cpu.js';
import { serveBenchPage } from './bench-page.js';

// The baselines parse pages in this process as the plugin does; linkedom loads at first use.
await loadHtmlParser();

const RUNS = Number(process.env.BENCH_RUNS ?? 60);
/** Launch-per-request samples (BENCH_COLD; 0 skips them, for a quick look at the pool alone). */
const COLD_RUNS = Number(process.env.BENCH_COLD ?? Math.max(8, Math.round(RUNS / 6)));
const PLAIN_REQUESTS = Number(process.env.BENCH_PLAIN ?? 400);
const PLAIN_CONCURRENCY = 8;
/**
 * Calls before the measured ones (BENCH_WARMUP): the pool launches Chromium on the first, and V8
 * keeps compiling the service's hot functions well after (issue 27, perf on the service: ~14 ms
 * of TurboFan per call on V8's helper threads over calls 4-33, still ~9 after 100). The default
 * keeps the figures comparable with earlier runs; a larger value measures a service that has
 * been answering for a while.
 */
const WARMUP = Math.max(1, Number(process.env.BENCH_WARMUP ?? 3));
/** Pause after each measured call, in ms (BENCH_IDLE_MS): long enough for the pool to prepare its next context. */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 400);
const ADMIN = 'bench-admin-token';


/**
 * CPU seconds used so far by this process and every process under it (Chromium's browser,
 * renderers and helpers), reaped ones included. Wall-clock latency depends on what else the
 * shared cores are doing; CPU time per request much less so, so both are reported.
 */
const tree = new ProcessTree(process.pid);
const cpuSeconds = () => tree.cpuSeconds();

function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** This process's threads by when they started (see the module comment), for `roles` below. */
const threadsBefore = (): Set<string> => new Set(readdirSync(`/proc/${process.pid}/task`));
const helperThreads = threadsBefore();
const serviceThreads = new Set<string>();
function nodeThreads(): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    if (tid === String(process.pid)) continue;
    try {
      const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const role = helperThreads.has(tid) ? 'node:v8-helpers' : serviceThreads.has(tid) ? 'node:service-threads' : 'node:call-threads';
      out.set(role, (out.get(role) ?? 0) + (Number(f[11]) + Number(f[12])) * 10_000);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

const site = await serveBenchPage();
const pageUrl = site.url;

const dataDir = await mkdtemp(join(os.tmpdir(), 'bench-scrape-'));
const server = await startService(
  { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'error', ALLOW_PRIVATE_NETWORK: 'true' },
  {
    serviceConfig: {
      plugins: {
        capabilities: () => import('../plugins/capabilities/index.js'),
        web: () => import('../plugins/web/index.js'),
      },
    },
  },
);
for (const tid of threadsBefore()) if (!helperThreads.has(tid)) serviceThreads.add(tid);

// The pool's own binary (Debian's headless shell when installed) is the headline baseline, so the
// ratio measures the pool and nothing else; Debian's full /usr/bin/chromium is shown beside it.
const POOL_BINARY = chromiumPath(process.env);
const FULL_BINARY = '/usr/bin/chromium';

/** The naive way: a fresh Chromium per request, same wait and conversion as the plugin. */
async function launchPerRequest(exe: string): Promise<number> {
  const t = performance.now();
  const profile = await mkdtemp(join(os.tmpdir(), 'bench-chromium-'));
  const browser = await puppeteer.launch({ executablePath: exe, headless: headlessModeFor(exe), args: CHROMIUM_ARGS, userDataDir: profile, pipe: true });
  try {
    const page = await browser.newPage();
    await page.goto(pageUrl, { waitUntil: 'load' });
    const html = await page.content();
    const md = toMarkdown(new ParsedPage(html, page.url()).bodyHtml());
    if (!md.includes('Rendered')) throw new Error('baseline did not render the page');
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
  return performance.now() - t;
}

/** The floor: one browser, one page, reused for every load (no isolation between loads). */
async function warmPageFloor() {
  const profile = await mkdtemp(join(os.tmpdir(), 'bench-floor-'));
  const browser = await puppeteer.launch({ executablePath: POOL_BINARY, headless: headlessModeFor(POOL_BINARY), args: CHROMIUM_ARGS, userDataDir: profile, pipe: true });
  const page = await browser.newPage();
  return {
    async load(): Promise<number> {
      const t = performance.now();
      await page.goto(pageUrl, { waitUntil: 'load' });
      const html = await page.content();
      const md = toMarkdown(new ParsedPage(html, page.url()).bodyHtml());
      if (!md.includes('Rendered')) throw new Error('floor did not render the page');
      return performance.now() - t;
    },
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Five actions whose own waits add up to ACTION_WAITS_MS. */
const ACTIONS = [
  { type: 'wait', milliseconds: 10 },
  { type: 'click', selector: '#app' },
  { type: 'scroll', direction: 'down', amount: 200 },
  { type: 'executeJavascript', script: 'return document.title' },
  { type: 'wait', milliseconds: 10 },
];
const ACTION_WAITS_MS = 20;

try {
  const key = await createBenchKey(server.url, ADMIN);
  const scrape = async (renderJs: boolean, extra: Record<string, unknown> = {}): Promise<number> => {
    const t = performance.now();
    const res = await fetch(`${server.url}/api/v1/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: pageUrl, renderJs, ...extra }),
    });
    const body = (await res.json()) as { content?: string };
    const ms = performance.now() - t;
    if (res.status !== 200 || (renderJs && !body.content?.includes('Rendered'))) throw new Error(`scrape answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    return ms;
  };

  // Warm-up: the pool launches Chromium on first use; HTTP keep-alive; see WARMUP.
  for (let i = 0; i < WARMUP; i++) await scrape(true);
  // Interleaved, so both series see the same machine load (other work shares these cores).
  const warm: number[] = [];
  const cold: number[] = [];
  const coldFull: number[] = [];
  let warmCpu = 0;
  let coldCpu = 0;
  const floor: number[] = [];
  const withActions: number[] = [];
  let floorCpu = 0;
  const floorPage = await warmPageFloor();
  for (let i = 0; i < 3; i++) await floorPage.load();
  const every = Math.max(1, Math.floor(RUNS / Math.max(1, COLD_RUNS)));
  // Each measured call is followed by a pause: the pool closes the call's context and prepares
  // the next one then, as it does between a service's calls. That background work is charged to
  // the call (CPU counted through the pause), and the next measurement starts on an idle pool.
  const idle = () => new Promise((r) => setTimeout(r, IDLE_MS));
  // Where each series' CPU goes, by process (this process, and each browser's processes by type).
  // This process's threads other than the main one are split by when they started (nodeThreads).
  const roles = () => {
    const byRole = tree.cpuByRole((dir) => (dir.includes('bench-floor-') ? 'floor' : dir.includes('bench-chromium-') ? 'cold' : 'pool'));
    byRole.delete('node:node');
    for (const [role, us] of nodeThreads()) byRole.set(role, us);
    return byRole;
  };
  const addRoles = (sum: CpuSnapshot, before: CpuSnapshot, after: CpuSnapshot) => {
    for (const [role, us] of after) sum.set(role, (sum.get(role) ?? 0) + us - (before.get(role) ?? 0));
  };
  const warmRoles: CpuSnapshot = new Map();
  const floorRoles: CpuSnapshot = new Map();
  const idleRoles: CpuSnapshot = new Map();
  let idleCpu = 0;
  for (let i = 0; i < RUNS; i++) {
    // The attribution's own /proc scan stays outside the measured window.
    let r = roles();
    let c = cpuSeconds();
    warm.push(await scrape(true));
    await idle();
    warmCpu += cpuSeconds() - c;
    addRoles(warmRoles, r, roles());
    r = roles();
    c = cpuSeconds();
    floor.push(await floorPage.load());
    await idle();
    floorCpu += cpuSeconds() - c;
    addRoles(floorRoles, r, roles());
    r = roles();
    c = cpuSeconds();
    await idle();
    idleCpu += cpuSeconds() - c;
    addRoles(idleRoles, r, roles());
    withActions.push(await scrape(true, { actions: ACTIONS }));
    await idle();
    if (i % every === every - 1 && cold.length < COLD_RUNS) {
      c = cpuSeconds();
      cold.push(await launchPerRequest(POOL_BINARY));
      coldCpu += cpuSeconds() - c;
      if (FULL_BINARY !== POOL_BINARY) coldFull.push(await launchPerRequest(FULL_BINARY));
    }
  }

  await floorPage.close();
  for (let i = 0; i < 20; i++) await scrape(false);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: PLAIN_CONCURRENCY }, async () => {
      while (next++ < PLAIN_REQUESTS) await scrape(false);
    }),
  );
  const plainSeconds = (performance.now() - started) / 1000;

  const row = (label: string, s: number[]) =>
    `${label.padEnd(44)} p50 ${percentile(s, 50).toFixed(1).padStart(7)} ms   p95 ${percentile(s, 95).toFixed(1).padStart(7)} ms   (n=${s.length})`;
  console.log(`scrape benchmark on ${os.cpus().length} cores (load average ${os.loadavg()[0]!.toFixed(1)}): a local page that builds its content with JavaScript`);
  console.log(row('scrape renderJs:true, warm pool (via HTTP)', warm));
  const wc = (warmCpu / warm.length) * 1000;
  if (cold.length) {
    console.log(row(`launch per request, ${POOL_BINARY.split('/').pop()} (in-process)`, cold));
    if (coldFull.length) console.log(row(`launch per request, ${FULL_BINARY} (in-process)`, coldFull));
    const ratio = percentile(cold, 50) / percentile(warm, 50);
    const verdict = (r: number) => `(target >= 5x: ${r >= 5 ? 'met' : 'NOT met'})`;
    console.log(`warm pool p50 is ${ratio.toFixed(1)}x faster than launching the same binary per request ${verdict(ratio)}; p95 ${(percentile(cold, 95) / percentile(warm, 95)).toFixed(1)}x`);
    if (coldFull.length) {
      const full = percentile(coldFull, 50) / percentile(warm, 50);
      console.log(`warm pool p50 is ${full.toFixed(1)}x faster than launching ${FULL_BINARY} per request ${verdict(full)}; p95 ${(percentile(coldFull, 95) / percentile(warm, 95)).toFixed(1)}x`);
    }
    const cc = (coldCpu / cold.length) * 1000;
    console.log(`CPU time per request (all processes): warm ${wc.toFixed(0)} ms, launch-per-request ${cc.toFixed(0)} ms, ratio ${(cc / wc).toFixed(1)}x`);
  }
  const fl = percentile(floor, 50);
  const fc = (floorCpu / floor.length) * 1000;
  console.log(row('warm-page floor (one page reused, in-process)', floor));
  console.log(
    `warm pool p50 is ${(percentile(warm, 50) / fl).toFixed(2)}x the warm-page floor (target <= 1.5x: ${percentile(warm, 50) <= 1.5 * fl ? 'met' : 'NOT met'}); ` +
      `CPU per page: pool ${wc.toFixed(0)} ms, floor ${fc.toFixed(0)} ms, pool - floor ${(wc - fc).toFixed(0)} ms (target pool <= 80 ms: ${wc <= 80 ? 'met' : 'NOT met'})`,
  );
  console.log(`CPU per page by process, ms: pool call: ${formatRoles(new Map(), warmRoles, warm.length)}`);
  console.log(`CPU per page by process, ms: floor load: ${formatRoles(new Map(), floorRoles, floor.length)}`);
  const ic = (idleCpu / RUNS) * 1000;
  console.log(
    `idle background (the same ${IDLE_MS} ms pause, no call; in both figures above): ${ic.toFixed(0)} ms (${formatRoles(new Map(), idleRoles, RUNS)}); ` +
      `without it: pool ${(wc - ic).toFixed(0)} ms, floor ${(fc - ic).toFixed(0)} ms per page`,
  );
  console.log(row('scrape renderJs:true with 5 actions (via HTTP)', withActions));
  const added = percentile(withActions, 50) - percentile(warm, 50);
  console.log(`5 actions add ${added.toFixed(1)} ms at p50; their own waits are ${ACTION_WAITS_MS} ms (target <= waits + 20 ms: ${added <= ACTION_WAITS_MS + 20 ? 'met' : 'NOT met'})`);
  const pps = PLAIN_REQUESTS / plainSeconds;
  if (PLAIN_REQUESTS > 0) console.log(`scrape renderJs:false: ${pps.toFixed(0)} pages/s (${PLAIN_REQUESTS} requests, ${PLAIN_CONCURRENCY} at a time), ${(pps / (1000 / percentile(warm, 50))).toFixed(1)}x the warm browser's sequential rate`);
} finally {
  await server.stop();
  site.close();
  await rm(dataDir, { recursive: true, force: true });
}
