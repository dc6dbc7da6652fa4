/**
 * `npm run bench:code-flood`: what one key's flood of CPU loops in the code sandboxes does to
 * another key and to `/healthz` (issue 24, sandboxes under per-key CPU priority). A victim key
 * makes small runs one at a time (Python and JavaScript in turn) while `/healthz` is probed every
 * 50 ms: first quiet, then while an attacker key keeps `BENCH_FLOOD` Python runs of `while True:
 * pass` going (each stopped by its 3 s limit and sent again at once), fewer than the Python slots
 * so the victim never waits for a slot: what is measured is the CPU share. Prints, against the
 * quiet phase of the same run, the victim's p50/p99 and `/healthz` p99. Loopback only, bounded
 * (`BENCH_PHASE_MS` per phase, 12 s by default).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../server/start.js';
import { createBenchKey } from './load.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 12_000);
const FLOOD = Number(process.env.BENCH_FLOOD ?? 6);
const ADMIN = 'bench-admin-token';

function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

const dataDir = await mkdtemp(join(tmpdir(), 'bench-code-flood-'));
const server = await startService(
  { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'error', SANDBOX_MAX_CONCURRENT: String(FLOOD + 2) },
  { serviceConfig: { plugins: { capabilities: () => import('../plugins/capabilities/index.js'), code: () => import('../plugins/code/index.js') } } },
);
try {
  const [victim, attacker] = [await createBenchKey(server.url, ADMIN), await createBenchKey(server.url, ADMIN)];
  const run = async (key: string, lang: 'js' | 'python', code: string, timeout?: number) => {
    const t = performance.now();
    const res = await fetch(`${server.url}/api/v1/run-${lang}-code`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code, ...(timeout ? { timeout } : {}) }),
    });
    await res.arrayBuffer();
    return { ms: performance.now() - t, status: res.status };
  };
  // The victim's small run: a little real work, not only a spawn.
  const small = { python: 'print(sum(i * i for i in range(20000)))', js: 'let s = 0; for (let i = 0; i < 200000; i++) s += i * i; console.log(s)' };
  for (let i = 0; i < 10; i++) await Promise.all([run(victim, 'python', small.python), run(victim, 'js', small.js)]);

  /** One phase: the victim's runs and the /healthz probe for PHASE_MS. */
  const phase = async () => {
    const end = Date.now() + PHASE_MS;
    const victimPy: number[] = [];
    const victimJs: number[] = [];
    const health: number[] = [];
    const probe = (async () => {
      while (Date.now() < end) {
        const t = performance.now();
        await (await fetch(`${server.url}/healthz`)).arrayBuffer();
        health.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    while (Date.now() < end) {
      const py = await run(victim, 'python', small.python);
      if (py.status === 200) victimPy.push(py.ms);
      const js = await run(victim, 'js', small.js);
      if (js.status === 200) victimJs.push(js.ms);
    }
    await probe;
    return { victimPy, victimJs, health };
  };

  const quiet = await phase();
  let flooding = true;
  let floodRuns = 0;
  const flood = Array.from({ length: FLOOD }, async () => {
    while (flooding) {
      await run(attacker, 'python', 'while True:\n    pass', 3000);
      floodRuns++;
    }
  });
  // Let the flood reach its full width before measuring.
  await new Promise((r) => setTimeout(r, 1500));
  const loud = await phase();
  flooding = false;
  await Promise.all(flood);

  const fmt = (s: number[]) => `p50 ${percentile(s, 50).toFixed(0).padStart(5)} ms  p99 ${percentile(s, 99).toFixed(0).padStart(5)} ms  (n=${s.length})`;
  const ratio = (a: number[], b: number[], p: number) => (percentile(b, p) / percentile(a, p)).toFixed(2);
  console.log(`code flood: ${FLOOD} Python CPU loops of one key against another key's small runs, ${PHASE_MS / 1000} s per phase`);
  console.log(`victim Python   quiet ${fmt(quiet.victimPy)}   flood ${fmt(loud.victimPy)}   p50 ${ratio(quiet.victimPy, loud.victimPy, 50)}x  p99 ${ratio(quiet.victimPy, loud.victimPy, 99)}x`);
  console.log(`victim JS       quiet ${fmt(quiet.victimJs)}   flood ${fmt(loud.victimJs)}   p50 ${ratio(quiet.victimJs, loud.victimJs, 50)}x  p99 ${ratio(quiet.victimJs, loud.victimJs, 99)}x`);
  console.log(`/healthz        quiet ${fmt(quiet.health)}   flood ${fmt(loud.health)}`);
  console.log(`attacker runs finished: ${floodRuns}`);
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
