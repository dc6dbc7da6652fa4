/**
 * `npm run bench:gateway`: throughput and p50/p99 of `POST /api/v2/run` through auth + rate limit
 * + ledger + usage log to a trivial capability, against a bare Fastify route doing the same
 * work, measured in the same run; prints the ratios (issue 2 targets: ≥ 0.75× throughput on the
 * embedded store, p99 overhead ≤ 5 ms). Each server runs in its own process; the load comes from
 * this one. BENCH_SECONDS and BENCH_CONNECTIONS tune the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { load, type LoadResult } from './load.js';
import { postgresBackend } from '../test/helpers/storage.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

async function startServer(mode: string, env: Record<string, string> = {}): Promise<{ url: string; key: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', join(import.meta.dirname, 'gateway-server.ts'), mode], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (b) => {
      buf += b;
      const i = buf.indexOf('\n');
      if (i >= 0) resolve(buf.slice(0, i));
    });
    child.once('exit', (c) => reject(new Error(`${mode} server exited ${c}`)));
  });
  return { ...(JSON.parse(line) as { url: string; key: string }), child };
}

async function measure(mode: string, env: Record<string, string> = {}): Promise<LoadResult> {
  const s = await startServer(mode, env);
  try {
    const req = {
      method: 'POST',
      path: '/api/v2/run',
      headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'capability', id: 'test_echo', input: { text: 'hello' } }),
      expect: 200,
    };
    await load(s.url, { ...req, connections: CONNECTIONS, seconds: 2 });
    return await load(s.url, { ...req, connections: CONNECTIONS, seconds: SECONDS });
  } finally {
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
  }
}

const fmt = (r: LoadResult) => `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}`;
const bare = await measure('bare');
const embedded = await measure('engine');
let withPg: LoadResult | undefined;
if (!process.env.BENCH_SKIP_PG) {
  // A fresh database, dropped afterwards, so the benchmark leaves nothing behind.
  const pg = await postgresBackend();
  try {
    withPg = await measure('postgres', { BENCH_DATABASE_URL: pg.env.DATABASE_URL!, BENCH_REDIS_URL: pg.env.REDIS_URL! });
  } finally {
    await pg.dispose();
  }
}
console.log(`gateway benchmark: ${CONNECTIONS} connections, ${SECONDS} s each`);
console.log(`bare fastify         ${fmt(bare)}`);
console.log(`engine (embedded)    ${fmt(embedded)}`);
if (withPg) console.log(`engine (postgres)    ${fmt(withPg)}`);
console.log(`embedded: throughput ratio ${(embedded.rps / bare.rps).toFixed(2)}x (target >= 0.75x), p99 overhead ${(embedded.p99 - bare.p99).toFixed(2)} ms (target <= 5 ms)`);
if (withPg) console.log(`postgres: throughput ratio ${(withPg.rps / bare.rps).toFixed(2)}x, p99 overhead ${(withPg.p99 - bare.p99).toFixed(2)} ms`);
