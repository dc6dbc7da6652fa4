/**
 * `node --no-node-snapshot --import tsx bench/code.ts`: p50/p95 latency of a hello-world run of
 * `POST /api/v1/run-js-code` and `POST /api/v1/run-python-code` through the HTTP API (one request
 * at a time), next to bare `node -e` and `/usr/bin/python3 -c` process spawns measured in the
 * same run; prints the ratios against the issue 6 targets (JS p50 <= 15 ms; Python p50 <= 2x the
 * bare python3 spawn). BENCH_RUNS sets the number of measured requests per kind.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../server/start.js';
import { createBenchKey } from './load.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const SPAWNS = Math.max(20, Math.round(RUNS / 4));
const ADMIN = 'bench-admin-token';

function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function timeSpawn(cmd: string, args: string[]): Promise<number> {
  const t = performance.now();
  await new Promise<void>((resolve, reject) => {
    const c = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    c.stdout.resume();
    c.once('error', reject);
    c.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}`))));
  });
  return performance.now() - t;
}

async function series(n: number, one: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await one());
  return out;
}

const dataDir = await mkdtemp(join(tmpdir(), 'bench-code-'));
const server = await startService(
  { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'error' },
  {
    serviceConfig: {
      plugins: {
        capabilities: () => import('../plugins/capabilities/index.js'),
        code: () => import('../plugins/code/index.js'),
      },
    },
  },
);
try {
  const key = await createBenchKey(server.url, ADMIN);
  const call = async (path: string, code: string): Promise<number> => {
    const t = performance.now();
    const res = await fetch(server.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const body = (await res.json()) as { logs?: { stdout: string[] } };
    const ms = performance.now() - t;
    if (res.status !== 200 || body.logs?.stdout[0] !== 'hello') throw new Error(`${path} answered ${res.status} ${JSON.stringify(body)}`);
    return ms;
  };
  const jsRun = () => call('/api/v1/run-js-code', 'console.log("hello")');
  const pyRun = () => call('/api/v1/run-python-code', 'print("hello")');
  // Warm-up: worker processes, isolates, pre-started Python sandboxes, HTTP keep-alive.
  await series(20, jsRun);
  await series(20, pyRun);

  const js = await series(RUNS, jsRun);
  const py = await series(RUNS, pyRun);
  const node = await series(SPAWNS, () => timeSpawn(process.execPath, ['-e', 'console.log("hello")']));
  const python = await series(SPAWNS, () => timeSpawn('/usr/bin/python3', ['-c', 'print("hello")']));

  const row = (label: string, s: number[]) =>
    `${label.padEnd(34)} p50 ${percentile(s, 50).toFixed(1).padStart(6)} ms   p95 ${percentile(s, 95).toFixed(1).padStart(6)} ms   (n=${s.length})`;
  console.log('code execution benchmark: hello world, one request at a time');
  console.log(row('run-js-code via HTTP', js));
  console.log(row('node -e (process spawn)', node));
  console.log(row('run-python-code via HTTP', py));
  console.log(row('/usr/bin/python3 -c (process spawn)', python));
  const jsP50 = percentile(js, 50);
  const pyRatio = percentile(py, 50) / percentile(python, 50);
  console.log(`JS: p50 ${jsP50.toFixed(1)} ms (target <= 15 ms: ${jsP50 <= 15 ? 'met' : 'NOT met'}); ${(percentile(node, 50) / jsP50).toFixed(1)}x faster than spawning node -e`);
  console.log(`Python: p50 ratio to bare python3 -c ${pyRatio.toFixed(2)}x (target <= 2x: ${pyRatio <= 2 ? 'met' : 'NOT met'})`);
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
