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
 * BENCH_RUNS calls per variant (default 40); BENCH_EXTRA_ARGS adds Chromium flags (space-separated).
 */
import http from 'node:http';
import os from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import puppeteer from 'puppeteer-core';
import { CHROMIUM_ARGS, chromiumPath, headlessModeFor } from '../core/engines/browser/pool.js';
import { attachByteMeter, type ByteMeter } from '../core/engines/browser/byte-meter.js';
import { installFrameWatch } from '../core/engines/browser/frame-watch.js';
import { readDom } from '../core/engines/browser/read-dom.js';
import { formatRoles, ProcessTree, type CpuSnapshot } from './cpu.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const PAUSE_MS = 300;
const PAGE = `<!doctype html><html lang="en"><head><title>Bench page</title><meta name="description" content="bench"></head>
<body><nav><a href="/a">A</a> <a href="/b">B</a></nav><main id="app"></main>
<script>document.getElementById('app').innerHTML = '<h1>Rendered</h1>' + '<p>Paragraph of rendered text with a <a href="/x">link</a>.</p>'.repeat(30);</script>
</body></html>`;
/** What warm-contexts.ts clears of an origin. */
const STORAGE_TYPES = 'local_storage,indexeddb,cache_storage,service_workers,file_systems,websql,storage_buckets,shared_storage,interest_groups,other';

const site = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(PAGE);
});
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
const exe = chromiumPath(process.env);
const profile = await mkdtemp(join(os.tmpdir(), 'bench-reset-'));
const extra = (process.env.BENCH_EXTRA_ARGS ?? '').split(' ').filter(Boolean);
const browser = await puppeteer.launch({ executablePath: exe, headless: headlessModeFor(exe), args: [...CHROMIUM_ARGS, ...extra], userDataDir: profile, pipe: true, defaultViewport: null });

async function poolPage() {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const [meter] = await Promise.all([attachByteMeter(page), page.setCacheEnabled(false), installFrameWatch(page)]);
  return { page, meter };
}

async function reset(page: import('puppeteer-core').Page, meter: ByteMeter, clear: boolean): Promise<void> {
  await page.goto('about:blank');
  if (clear) {
    const s = meter.session;
    await Promise.all([
      s.send('Page.resetNavigationHistory'),
      ...[...meter.origins].map((origin) => s.send('Storage.clearDataForOrigin', { origin, storageTypes: STORAGE_TYPES })),
      s.send('Network.clearBrowserCookies'),
    ]);
  }
  meter.reset();
}

const variants: { name: string; run: () => Promise<void> }[] = [];
{
  const page = await (await browser.createBrowserContext()).newPage();
  variants.push({ name: 'floor', run: async () => void (await page.goto(url, { waitUntil: 'load' }), await page.content()) });
}
for (const name of ['no reset', 'blank', 'reset'] as const) {
  const { page, meter } = await poolPage();
  variants.push({
    name,
    run: async () => {
      await page.goto(url, { waitUntil: 'load' });
      const dom = await readDom(page, { load: 5000, refresh: 5000, frame: true });
      if (!dom.html.includes('Rendered')) throw new Error('the page did not render');
      if (name !== 'no reset') await reset(page, meter, name === 'reset');
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
    console.log(`${v.name.padEnd(10)} total ${total.toFixed(1).padStart(6)}   ${formatRoles(new Map(), sums[k]!, RUNS)}`);
  }
} finally {
  await browser.close();
  site.close();
  await rm(profile, { recursive: true, force: true });
}
