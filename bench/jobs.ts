/**
 * `npm run bench:jobs` (issue 25 "Done when"): the submit-to-completed overhead of a trivial job,
 * p50 and p99, on the embedded store and on PostgreSQL (target p50 ≤ 25 ms on both), loopback
 * only. Two trivial jobs: a single-result one (the echo test capability, one executor call) and
 * a one-item stepwise one (the pager test capability). Each job is measured twice: by the store's
 * own clock (`finishedAt − createdAt`, the engine's overhead alone) and as a client sees it (from
 * sending POST /api/v2/jobs until a GET, polled every BENCH_POLL_MS, default 5 ms, answers `completed`).
 *
 * Then, on each store, the batch-scrape and crawl ratios of the issue (bench/jobs-work.ts: a
 * 1,000-page batch job against the synchronous route, a 2,000-page crawl job against a plain
 * fetch-and-convert loop, at the same concurrency). BENCH_SKIP_WORK=1 skips them.
 * BENCH_RUNS sets the jobs per kind (default 100); BENCH_SKIP_PG=1 skips PostgreSQL;
 * BENCH_SKIP_EMBEDDED=1 skips the embedded store; BENCH_SKIP_OVERHEAD=1 skips the overhead part (to time or profile the work part alone).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningServer } from '../server/start.js';
import { jobsConfig } from '../test/fixtures/job-plugins.js';
import { workRatios } from './jobs-work.js';
import { postgresBackend, type Backend } from '../test/helpers/storage.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const ADMIN = 'bench-admin-token';
/** How often the client reads a job it waits for: often enough to see the end, not so often the reads crowd out the job. */
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 5);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function call(base: string, method: string, path: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return res.json();
}

/** Runs RUNS jobs of one kind one after another; answers engine and client overheads (ms). */
async function measure(server: RunningServer, key: string, job: unknown): Promise<{ engine: number[]; client: number[] }> {
  const engine: number[] = [];
  const client: number[] = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const t0 = performance.now();
    const submitted = await call(server.url, 'POST', '/api/v2/jobs', key, job);
    const id = submitted.data.id as string;
    let view: any;
    for (;;) {
      view = (await call(server.url, 'GET', `/api/v2/jobs/${id}?skipData=true`, key)).data;
      if (view.status === 'completed' || view.status === 'failed') break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const t1 = performance.now();
    if (view.status !== 'completed') throw new Error(`job failed: ${JSON.stringify(view.error)}`);
    if (i < 5) continue; // warm-up
    client.push(t1 - t0);
    engine.push(Date.parse(view.finishedAt) - Date.parse(view.createdAt));
  }
  return { engine, client };
}

/** p50 of the same echo call through `POST /api/v2/run`, the reference a loaded machine's figures are read against. */
async function runBaseline(server: RunningServer, key: string): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const t0 = performance.now();
    const r = await call(server.url, 'POST', '/api/v2/run', key, { type: 'capability', id: 'test_echo', input: { text: 'x' } });
    if (!r.success) throw new Error(JSON.stringify(r));
    if (i >= 5) xs.push(performance.now() - t0);
  }
  return pct(xs, 50);
}

async function benchStore(name: string, env: Record<string, string>): Promise<void> {
  if (process.env.BENCH_SKIP_OVERHEAD !== '1') await overhead(name, env);
  // A server of its own with the web plugin: the ratios measure the web lane's real work.
  if (process.env.BENCH_SKIP_WORK !== '1') for (const line of await workRatios(env)) console.log(`${name.padEnd(10)} ${line}`);
}

/** The submit-to-completed overhead of the two trivial jobs on one store. */
async function overhead(name: string, env: Record<string, string>): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cia-bench-jobs-'));
  const server = await startService({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'error', DOCUMENTS_PREWARM: 'false', JOB_MAX_RUNNING_PER_KEY: '100', ...env }, { serviceConfig: jobsConfig() });
  try {
    const created = await call(server.url, 'POST', '/admin/keys', ADMIN, { name: 'bench', credits: 10_000_000, rateLimitPerMinute: 1_000_000 });
    const key = created.key as string;
    const run = await runBaseline(server, key);
    console.log(`${name.padEnd(10)} reference: POST /api/v2/run of the same echo, p50 ${run.toFixed(1)} ms`);
    for (const [label, job] of [
      ['single call (test_echo)', { type: 'capability', id: 'test_echo', input: { text: 'x' } }],
      ['one-item stepwise (test_pages)', { type: 'capability', id: 'test_pages', input: { count: 1 } }],
    ] as const) {
      const { engine, client } = await measure(server, key, job);

      console.log(`${name.padEnd(10)} ${label.padEnd(32)} engine p50 ${pct(engine, 50).toFixed(1)} ms p99 ${pct(engine, 99).toFixed(1)} ms | client p50 ${pct(client, 50).toFixed(1)} ms p99 ${pct(client, 99).toFixed(1)} ms (target p50 ≤ 25 ms; client p50 = ${(pct(client, 50) / run).toFixed(1)}× a run call)`);
    }
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

console.log(`submit → completed overhead of a trivial job, ${RUNS} sequential jobs per kind, loopback`);
if (process.env.BENCH_SKIP_EMBEDDED !== '1') await benchStore('embedded', {});
if (process.env.BENCH_SKIP_PG !== '1') {
  let pg: Backend | undefined;
  try {
    pg = await postgresBackend();
  } catch (err) {
    console.log(`postgres   skipped: ${(err as Error).message}`);
  }
  if (pg) {
    try {
      await benchStore('postgres', pg.env);
    } finally {
      await pg.dispose();
    }
  }
}
