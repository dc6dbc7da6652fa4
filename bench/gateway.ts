/**
 * `npm run bench:gateway`: throughput and p50/p99 of `POST /api/v2/run` through auth + rate limit
 * + ledger + usage log to a trivial capability, against a bare Fastify route doing the same
 * work, measured in the same run; prints the ratios (issue 2 targets: ≥ 0.75× throughput on the
 * embedded store, p99 overhead ≤ 5 ms; issue 18: PostgreSQL ≥ 0.15× on one hot key and ≥ 0.25×
 * over 1,000 keys, p99 overhead ≤ 10 ms). Each server runs in its own process; the load comes
 * from this one. BENCH_SECONDS, BENCH_CONNECTIONS and BENCH_MANY_KEYS (1000) tune the run;
 * BENCH_SKIP_PG skips PostgreSQL. Each run also prints the CPU every process spent per request (bench/cpu.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { load, type LoadResult } from './load.js';
import { cpuPerRequest, cpuSnapshot, formatCpu } from './cpu.js';
import { postgresBackend } from '../test/helpers/storage.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const MANY_KEYS = Number(process.env.BENCH_MANY_KEYS ?? 1000);

async function startServer(mode: string, env: Record<string, string> = {}): Promise<{ url: string; key: string; keys: string[]; child: ChildProcess }> {
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
  return { ...(JSON.parse(line) as { url: string; key: string; keys: string[] }), child };
}

/** A run's result with the CPU each party spent per request (µs). */
type Measured = LoadResult & { cpu: string };

async function measure(mode: string, env: Record<string, string> = {}): Promise<Measured> {
  const s = await startServer(mode, env);
  try {
    // Every request takes the next key in turn (one key unless BENCH_KEYS made more).
    const headers = (s.keys ?? [s.key]).map((k) => ({ authorization: `Bearer ${k}`, 'content-type': 'application/json' }));
    let next = 0;
    const req = {
      method: 'POST',
      path: '/api/v2/run',
      headers: () => headers[next++ % headers.length]!,
      body: JSON.stringify({ type: 'capability', id: 'test_echo', input: { text: 'hello' } }),
      expect: 200,
    };
    await load(s.url, { ...req, connections: CONNECTIONS, seconds: 2 });
    const before = cpuSnapshot(s.child.pid!);
    const result = await load(s.url, { ...req, connections: CONNECTIONS, seconds: SECONDS });
    return { ...result, cpu: formatCpu(cpuPerRequest(before, cpuSnapshot(s.child.pid!), result.requests)) };
  } finally {
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
  }
}

const fmt = (r: LoadResult) => `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}`;
const bare = await measure('bare');
const embedded = await measure('engine');
let withPg: Measured | undefined;
let withPgMany: Measured | undefined;
if (!process.env.BENCH_SKIP_PG) {
  // A fresh database per run, dropped afterwards, so the benchmark leaves nothing behind.
  for (const keys of [1, MANY_KEYS]) {
    const pg = await postgresBackend();
    try {
      const r = await measure('postgres', { BENCH_DATABASE_URL: pg.env.DATABASE_URL!, BENCH_REDIS_URL: pg.env.REDIS_URL!, BENCH_KEYS: String(keys) });
      if (keys === 1) withPg = r;
      else withPgMany = r;
    } finally {
      await pg.dispose();
    }
  }
}
console.log(`gateway benchmark: ${CONNECTIONS} connections, ${SECONDS} s each`);
console.log(`bare fastify         ${fmt(bare)}`);
console.log(`engine (embedded)    ${fmt(embedded)}`);
if (withPg) console.log(`engine (postgres)    ${fmt(withPg)}   one hot key`);
if (withPgMany) console.log(`engine (postgres)    ${fmt(withPgMany)}   ${MANY_KEYS} keys`);
// Where the cores went (all processes on the machine, so run it with nothing else busy).
console.log('CPU per request (µs, from /proc, every process on the machine):');
const runs: [string, Measured | undefined][] = [['bare fastify', bare], ['engine (embedded)', embedded], ['postgres, hot key', withPg], [`postgres, ${MANY_KEYS} keys`, withPgMany]];
for (const [name, r] of runs) if (r) console.log(`  ${name.padEnd(20)} ${r.cpu}`);
console.log(`embedded: throughput ratio ${(embedded.rps / bare.rps).toFixed(2)}x (target >= 0.75x), p99 overhead ${(embedded.p99 - bare.p99).toFixed(2)} ms (target <= 5 ms)`);
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
if (withPg) console.log(`postgres, one hot key: throughput ratio ${(withPg.rps / bare.rps).toFixed(2)}x (target >= 0.15x: ${verdict(withPg.rps / bare.rps >= 0.15)}), p99 overhead ${(withPg.p99 - bare.p99).toFixed(2)} ms (target <= 10 ms: ${verdict(withPg.p99 - bare.p99 <= 10)})`);
if (withPgMany) console.log(`postgres, ${MANY_KEYS} keys: throughput ratio ${(withPgMany.rps / bare.rps).toFixed(2)}x (target >= 0.25x: ${verdict(withPgMany.rps / bare.rps >= 0.25)}), p99 overhead ${(withPgMany.p99 - bare.p99).toFixed(2)} ms (target <= 10 ms: ${verdict(withPgMany.p99 - bare.p99 <= 10)})`);
