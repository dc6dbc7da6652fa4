/**
 * `npm run bench:console`: the console's overview over 1,000,000 usage rows on PostgreSQL (issue 26
 * target: it answers in ≤ 500 ms). Seeds a fresh database (BENCH_ROWS rows over 30 days, 100 keys),
 * rolls settled hours up as the service does in the background, then times what the overview page
 * asks for at once: GET /admin/stats split by the chosen field,
 * the same split by key (top keys) and the key list, for each of its ranges (last hour, last day,
 * last 30 days). Prints the median of 5 loads per range, and as a baseline measured in the same
 * run, one `SELECT count(*)` over the whole usage log.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startService } from '../server/start.js';
import { seedUsage } from './console-seed.js';
import { openPostgres } from '../core/storage/postgres.js';
import { refreshRollup } from '../core/usage/usage-rollup.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TOKEN = 'bench-admin-token';
const TARGET_MS = 500;

const name = `cia_bench_console_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${name}`;
const dataDir = await mkdtemp(join(tmpdir(), 'cia-bench-console-'));
const server = await startService({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: dbUrl.toString(), ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'error', DOCUMENTS_PREWARM: 'false' });
const get = async (path: string) => {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
};
try {
  const keyIds: string[] = [];
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${server.url}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `bench key ${i}`, credits: 1000 }) });
    keyIds.push(((await res.json()) as { id: string }).id);
  }
  let t = performance.now();
  await seedUsage(dbUrl.toString(), { n: ROWS, days: 30, keyIds });
  console.log(`seeded ${ROWS.toLocaleString('en-GB')} usage rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  // The service rolls settled hours up in the background, a day per step; here, at once.
  const db = await openPostgres(dbUrl.toString(), { max: 1 });
  t = performance.now();
  let steps = 0;
  while (await refreshRollup(db)) steps++;
  await db.close();
  console.log(`rolled up 30 days of settled hours in ${steps + 1} steps, ${((performance.now() - t) / 1000).toFixed(1)} s (a one-off, in the background)`);

  const c = new pg.Client({ connectionString: dbUrl.toString() });
  await c.connect();
  await c.query('SELECT count(*) FROM usage_log');
  t = performance.now();
  await c.query('SELECT count(*) FROM usage_log');
  const baseline = performance.now() - t;
  await c.end();

  const ranges = [
    ['last hour', 3_600_000, 'hour'],
    ['last day', 86_400_000, 'hour'],
    ['last 30 days', 30 * 86_400_000, 'day'],
  ] as const;
  console.log(`baseline: count(*) over the usage log ${baseline.toFixed(0)} ms`);
  for (const [label, ms, bucket] of ranges) {
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const now = Date.now();
      const q = `from=${new Date(now - ms).toISOString()}&to=${new Date(now).toISOString()}&bucket=${bucket}`;
      const start = performance.now();
      await Promise.all([get(`/admin/stats?${q}&groupBy=lane`), get(`/admin/stats?${q}&groupBy=key`), get('/admin/keys?limit=500')]);
      if (i > 0) times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    console.log(`overview, ${label}: median ${median.toFixed(0)} ms (target ≤ ${TARGET_MS} ms: ${(median / TARGET_MS).toFixed(2)}× the target, ${(median / baseline).toFixed(2)}× the count(*) baseline)`);
  }
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
