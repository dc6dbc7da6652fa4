/**
 * `node --no-node-snapshot --import tsx bench/scrape-reset-trace.ts` (issue 27, CPU per page): where
 * in Chromium a warm context's reset (warm-contexts.ts) spends its time, next to the page load it
 * follows. bench/scrape-reset.ts says how much each process spends; this says on what, from a
 * Chromium trace of BENCH_RUNS (default 15) calls on one pool-like page (byte meter, cache off,
 * frame watch), each a load and read of the bench page, then the reset as the pool does it.
 *
 * Printed per window kind (`page`: navigation, load and DOM read; `reset`: about:blank, history,
 * storage and cookies, plus a short tail for the paint it causes): the thread time of each
 * thread's top-level tasks, then the trace events with the most self time (thread time minus that
 * of the events nested in them). Tracing itself adds CPU, so compare the two kinds, not the
 * figures with bench/scrape-reset.ts. Trace timestamps and `process.hrtime` are both the
 * monotonic clock, so the windows are cut from node's own timestamps.
 */
import os from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { CHROMIUM_ARGS, chromiumPath, headlessModeFor } from '../core/engines/browser/pool.js';
import { attachByteMeter } from '../core/engines/browser/byte-meter.js';
import { installFrameWatch } from '../core/engines/browser/frame-watch.js';
import { readDom } from '../core/engines/browser/read-dom.js';
import { clearWhatTheJobLeft } from '../core/engines/browser/warm-contexts.js';
import { serveBenchPage } from './bench-page.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
/** After the reset's last answer: the about:blank document's frame is drawn a little later. */
const TAIL_MS = 150;
const CATEGORIES = ['toplevel', 'navigation', 'loading', 'blink', 'v8', 'devtools', 'disabled-by-default-devtools.timeline', 'cc', 'viz', 'gpu', 'ipc', 'mojom', 'renderer_host', 'browser', 'content'];

interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}
type Kind = 'page' | 'reset';

const site = await serveBenchPage();
const url = site.url;
const exe = chromiumPath(process.env);
const profile = await mkdtemp(join(os.tmpdir(), 'bench-reset-trace-'));
const browser = await puppeteer.launch({ executablePath: exe, headless: headlessModeFor(exe), args: CHROMIUM_ARGS, userDataDir: profile, pipe: true, defaultViewport: null });
const micros = () => Number(process.hrtime.bigint() / 1000n);

try {
  const page = await (await browser.createBrowserContext()).newPage();
  const [meter] = await Promise.all([attachByteMeter(page), page.setCacheEnabled(false), installFrameWatch(page)]);
  const call = async (windows?: { kind: Kind; from: number; to: number }[]) => {
    let from = micros();
    await page.goto(url, { waitUntil: 'load' });
    await readDom(page, { load: 5000, refresh: 5000, frame: true });
    windows?.push({ kind: 'page', from, to: micros() });
    await new Promise((r) => setTimeout(r, TAIL_MS));
    from = micros();
    await page.goto('about:blank');
    await clearWhatTheJobLeft(meter);
    await new Promise((r) => setTimeout(r, TAIL_MS));
    windows?.push({ kind: 'reset', from, to: micros() });
  };
  for (let i = 0; i < 3; i++) await call();
  // Traced from a page of another context, so the traced page's sessions stay as the pool's.
  const tracer = await (await browser.createBrowserContext()).newPage();
  await tracer.tracing.start({ categories: CATEGORIES });
  const windows: { kind: Kind; from: number; to: number }[] = [];
  for (let i = 0; i < RUNS; i++) await call(windows);
  const events = (JSON.parse(Buffer.from((await tracer.tracing.stop())!).toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;

  const names = new Map<string, string>();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'process_name') names.set(`${e.pid}`, e.args?.name ?? `${e.pid}`);
    if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args?.name ?? `${e.tid}`);
  }
  const threadOf = (e: TraceEvent) => `${names.get(`${e.pid}`) ?? e.pid}/${names.get(`${e.pid}:${e.tid}`) ?? e.tid}`;
  const kindAt = (ts: number): Kind | undefined => windows.find((w) => ts >= w.from && ts < w.to)?.kind;
  const tops = { page: new Map<string, number>(), reset: new Map<string, number>() };
  const selfs = { page: new Map<string, number>(), reset: new Map<string, number>() };
  const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);

  // Per thread, in start order: an event nested in the one open on the stack is its child.
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) if (e.ph === 'X' && e.dur !== undefined) (byThread.get(`${e.pid}:${e.tid}`) ?? byThread.set(`${e.pid}:${e.tid}`, []).get(`${e.pid}:${e.tid}`)!).push(e);
  for (const list of byThread.values()) {
    list.sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
    const stack: { e: TraceEvent; children: number }[] = [];
    const close = (item: { e: TraceEvent; children: number }) => {
      const kind = kindAt(item.e.ts);
      if (kind) add(selfs[kind], `${threadOf(item.e).split('/')[0]} ${item.e.name}`, Math.max(0, (item.e.tdur ?? item.e.dur!) - item.children));
    };
    for (const e of list) {
      while (stack.length && stack.at(-1)!.e.ts + stack.at(-1)!.e.dur! <= e.ts) close(stack.pop()!);
      const parent = stack.at(-1);
      if (parent) parent.children += e.tdur ?? e.dur!;
      else {
        const kind = kindAt(e.ts);
        if (kind) add(tops[kind], threadOf(e), e.tdur ?? e.dur!);
      }
      stack.push({ e, children: 0 });
    }
    while (stack.length) close(stack.pop()!);
  }

  const ms = (us: number) => (us / RUNS / 1000).toFixed(2).padStart(7);
  console.log(`reset trace on ${os.cpus().length} cores (load average ${os.loadavg()[0]!.toFixed(1)}), ${RUNS} calls; thread time per call, ms (tracing on):`);
  for (const kind of ['page', 'reset'] as const) {
    const total = [...tops[kind].values()].reduce((a, b) => a + b, 0);
    console.log(`\n== ${kind}: ${ms(total).trim()} ms in top-level tasks`);
    for (const [k, v] of [...tops[kind]].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  ${ms(v)}  ${k}`);
    console.log('  -- most self time');
    for (const [k, v] of [...selfs[kind]].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${ms(v)}  ${k}`);
  }
} finally {
  await browser.close();
  site.close();
  await rm(profile, { recursive: true, force: true });
}
