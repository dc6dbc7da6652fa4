/**
 * The work half of `npm run bench:jobs` (issue 25): loopback only, two ratios measured in the
 * same run against baselines doing the same work at the same concurrency, on one store.
 *
 * 1. A batch scrape of BATCH_PAGES local pages (`renderJs:false`) as one job, against the same
 *    pages through the synchronous `POST /api/v2/run` of `scrape_page` from CONCURRENCY loops
 *    (target: the job at least 0.9× the synchronous rate).
 * 2. A crawl job over a local site of CRAWL_PAGES pages, against a plain fetch-and-convert loop
 *    (undici fetch, the same HTML→markdown conversion, breadth-first, CONCURRENCY at a time, no
 *    robots, ledger or store) (target: at least 0.7× the loop's rate).
 *
 * The job engine's per-job item concurrency is set to CONCURRENCY (`JOB_ITEM_CONCURRENCY`) so
 * both sides run the same number of pages at once.
 *
 * Knobs: BENCH_BATCH_PAGES and BENCH_CRAWL_PAGES (0 skips that part), BENCH_CONCURRENCY,
 * BENCH_CRAWL_ROUNDS (default 2: loop, job, loop, job…, so a change in the machine's load
 * during the run falls on both sides; every round's ratio is printed and the median is the
 * figure), BENCH_CRAWL_SIDES=job (the crawl job alone, no ratio: for `node --cpu-prof`).
 */
import http from 'node:http';
import os from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startService } from '../server/start.js';
import { ParsedPage, toMarkdown } from '../plugins/web/page-content.js';
import { loadHtmlParser } from '../plugins/web/html-parser.js';
import { createBenchKey } from './load.js';

// The baselines parse pages in this process as the plugin does; linkedom loads at first use.
await loadHtmlParser();

const BATCH_PAGES = Number(process.env.BENCH_BATCH_PAGES ?? 1000);
const CRAWL_PAGES = Number(process.env.BENCH_CRAWL_PAGES ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const CRAWL_ROUNDS = Math.max(1, Number(process.env.BENCH_CRAWL_ROUNDS ?? 2));
const JOB_ONLY = process.env.BENCH_CRAWL_SIDES === 'job';
const ADMIN = 'bench-admin-token';
/** How often the client reads a job it waits for (ms). */
const POLL_MS = 100;
/** Children per page: a tree this wide reaches 2,000 pages within the crawl's depth limit. */
const FANOUT = 10;

/** Page `i` of the local site: some text and links to its children in the tree. */
function page(i: number): string {
  const links = [];
  for (let c = i * FANOUT + 1; c <= i * FANOUT + FANOUT && c < CRAWL_PAGES; c++) links.push(`<li><a href="/p/${c}">Page ${c}</a></li>`);
  const para = `<p>Paragraph of page ${i} with enough words to be converted like an ordinary article, and a <a href="/p/0">link home</a>.</p>`;
  return `<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><main><h1>Page ${i}</h1>${para.repeat(12)}<ul>${links.join('')}</ul></main></body></html>`;
}

/** CPU clock ticks of each thread of this process (Linux; empty elsewhere). */
function threadTicks(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${tid} ${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}`, Number(f[11]) + Number(f[12]));
    }
  } catch {
    // Not Linux: no breakdown.
  }
  return out;
}

/** The busiest threads since `before`, in CPU ms per page (the main thread is the one named like the process). */
function threadShares(before: Map<string, number>, pages: number): string {
  const tick = 10; // ms per clock tick (USER_HZ 100)
  return [...threadTicks()]
    .map(([k, v]) => [k, ((v - (before.get(k) ?? 0)) * tick) / pages] as const)
    .filter(([, ms]) => ms >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, ms]) => `${k.replace(String(process.pid), 'main')} ${ms.toFixed(2)}`)
    .join(', ');
}

/**
 * Runs both ratios on a fresh server with the web plugin on the store `storeEnv` names (empty:
 * embedded) and returns the lines to print.
 */
export async function workRatios(storeEnv: Record<string, string>): Promise<string[]> {
  const site = http.createServer((req, res) => {
    const m = /^\/p\/(\d+)$/.exec(req.url ?? '');
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('User-agent: *\nAllow: /\n');
    }
    if (!m || Number(m[1]) >= Math.max(CRAWL_PAGES, BATCH_PAGES)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(Number(m[1])));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

  const dataDir = await mkdtemp(join(os.tmpdir(), 'bench-jobs-work-'));
  const server = await startService(
    { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'error', ALLOW_PRIVATE_NETWORK: 'true', JOB_ITEM_CONCURRENCY: String(CONCURRENCY), ...storeEnv },
    {
      serviceConfig: {
        plugins: {
          capabilities: () => import('../plugins/capabilities/index.js'),
          web: () => import('../plugins/web/index.js'),
        },
      },
    },
  );

  const key = await createBenchKey(server.url, ADMIN);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  /**
   * Submits a job and waits for it to finish; returns seconds from submit to completed: the
   * submit's round trip plus the job's own `finishedAt − createdAt`, so the figure does not depend
   * on how often the client looks (it looks every POLL_MS, rarely enough that its reads are not
   * a load of their own on the store the job writes to).
   */
  async function runJob(id: string, input: unknown): Promise<{ seconds: number; done: number }> {
    const t = performance.now();
    const res = await fetch(`${server.url}/api/v2/jobs`, { method: 'POST', headers, body: JSON.stringify({ type: 'capability', id, input }) });
    const sub = (await res.json()) as { data?: { id: string } };
    const submitMs = performance.now() - t;
    if (res.status !== 202 || !sub.data) throw new Error(`job submit answered ${res.status} ${JSON.stringify(sub).slice(0, 300)}`);
    for (;;) {
      await new Promise((r2) => setTimeout(r2, POLL_MS));
      const r = await fetch(`${server.url}/api/v2/jobs/${sub.data.id}?skipData=true`, { headers });
      const body = (await r.json()) as { data: { status: string; createdAt: string; finishedAt: string; progress: { done: number; failed: number } } };
      if (body.data.status === 'completed') return { seconds: (submitMs + Date.parse(body.data.finishedAt) - Date.parse(body.data.createdAt)) / 1000, done: body.data.progress.done };
      if (body.data.status !== 'queued' && body.data.status !== 'running') throw new Error(`job ended ${JSON.stringify(body.data).slice(0, 300)}`);
    }
  }

  /** The same pages through the synchronous route, CONCURRENCY loops. */
  async function syncScrapes(urls: string[]): Promise<number> {
    const t = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < urls.length) {
          const url = urls[next++]!;
          const res = await fetch(`${server.url}/api/v2/run`, { method: 'POST', headers, body: JSON.stringify({ type: 'capability', id: 'scrape_page', input: { url, renderJs: false } }) });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`scrape answered ${res.status}`);
        }
      }),
    );
    return (performance.now() - t) / 1000;
  }

  /** The plain loop: breadth-first fetch and convert, no service in between. */
  async function plainCrawl(): Promise<{ seconds: number; pages: number }> {
    const t = performance.now();
    const seen = new Set<string>([`${origin}/p/0`]);
    const queue = [`${origin}/p/0`];
    let pages = 0;
    let inflight = 0;
    await new Promise<void>((resolve, reject) => {
      const pump = () => {
        while (inflight < CONCURRENCY && queue.length > 0 && pages + inflight < CRAWL_PAGES) {
          const url = queue.shift()!;
          inflight++;
          void (async () => {
            const html = await (await fetch(url)).text();
            const parsed = new ParsedPage(html, url);
            toMarkdown(parsed.bodyHtml());
            for (const a of parsed.document.querySelectorAll('a[href]')) {
              const next = new URL(a.getAttribute('href')!, url).href;
              if (!seen.has(next)) {
                seen.add(next);
                queue.push(next);
              }
            }
            pages++;
          })()
            .then(() => {
              inflight--;
              if (inflight === 0 && (queue.length === 0 || pages >= CRAWL_PAGES)) resolve();
              else pump();
            }, reject);
        }
      };
      pump();
    });
    return { seconds: (performance.now() - t) / 1000, pages };
  }

  const verdict = (r: number, target: number) => `(target >= ${target}x: ${r >= target ? 'met' : 'NOT met'})`;
  const lines: string[] = [];
  try {
    lines.push(`work benchmark (load average ${os.loadavg()[0]!.toFixed(1)}), ${CONCURRENCY} pages at a time`);
    // Warm-up: compute workers, keep-alive, the first job's queue set-up.
    await syncScrapes(Array.from({ length: 20 }, (_, i) => `${origin}/p/${i}`));
    await runJob('batch_scrape', { urls: Array.from({ length: 20 }, (_, i) => `${origin}/p/${i}`), renderJs: false });

    if (BATCH_PAGES > 0) {
      const urls = Array.from({ length: BATCH_PAGES }, (_, i) => `${origin}/p/${i}`);
      const syncSeconds = await syncScrapes(urls);
      const batch = await runJob('batch_scrape', { urls, renderJs: false });
      if (batch.done !== BATCH_PAGES) throw new Error(`the batch job did ${batch.done} of ${BATCH_PAGES} pages`);
      const batchRatio = BATCH_PAGES / batch.seconds / (BATCH_PAGES / syncSeconds);
      lines.push(`batch of ${BATCH_PAGES}: job ${(BATCH_PAGES / batch.seconds).toFixed(0)} pages/s, synchronous route ${(BATCH_PAGES / syncSeconds).toFixed(0)} pages/s: ${batchRatio.toFixed(2)}x ${verdict(batchRatio, 0.9)}`);
    }

    // CPU of the whole process (every thread: the service's, the local site's, the loop's) per
    // page: what a side costs the machine, which the load of other work does not change much.
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const u = process.cpuUsage(since);
      return (u.user + u.system) / 1000;
    };
    const crawlJob = async () => {
      const threads = threadTicks();
      const cpu = process.cpuUsage();
      const crawl = await runJob('crawl_site', { url: `${origin}/p/0`, limit: CRAWL_PAGES, depth: 10, format: 'markdown', sitemap: 'skip' });
      if (crawl.done !== CRAWL_PAGES) throw new Error(`the crawl job returned ${crawl.done} of ${CRAWL_PAGES} pages`);
      return { rate: crawl.done / crawl.seconds, cpuPerPage: cpuMs(cpu) / crawl.done, threads: threadShares(threads, crawl.done) };
    };
    if (CRAWL_PAGES > 0 && JOB_ONLY) {
      for (let r = 0; r < CRAWL_ROUNDS; r++) {
        const job = await crawlJob();
        lines.push(`crawl of ${CRAWL_PAGES}, round ${r + 1}: job ${job.rate.toFixed(0)} pages/s, CPU ${job.cpuPerPage.toFixed(2)} ms per page (no loop: BENCH_CRAWL_SIDES=job); by thread, ms per page: ${job.threads}`);
      }
    } else if (CRAWL_PAGES > 0) {
      // Loop and job alternate, so each ratio compares runs made under about the same load.
      const ratios: number[] = [];
      for (let r = 0; r < CRAWL_ROUNDS; r++) {
        const cpu = process.cpuUsage();
        const plain = await plainCrawl();
        const loopCpu = cpuMs(cpu) / plain.pages;
        const loopRate = plain.pages / plain.seconds;
        const job = await crawlJob();
        ratios.push(job.rate / loopRate);
        lines.push(
          `crawl of ${CRAWL_PAGES}, round ${r + 1} (load ${os.loadavg()[0]!.toFixed(1)}): job ${job.rate.toFixed(0)} pages/s, plain fetch-and-convert loop ${loopRate.toFixed(0)} pages/s: ${(job.rate / loopRate).toFixed(2)}x; CPU per page job ${job.cpuPerPage.toFixed(2)} ms, loop ${loopCpu.toFixed(2)} ms`,
        );
      }
      const sorted = [...ratios].sort((a, b) => a - b);
      const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
      lines.push(`crawl of ${CRAWL_PAGES}: median of ${ratios.length} rounds ${median.toFixed(2)}x (${sorted[0]!.toFixed(2)}-${sorted.at(-1)!.toFixed(2)}) ${verdict(median, 0.7)}`);
    }
  } finally {
    await server.stop();
    site.closeAllConnections();
    site.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  return lines;
}
