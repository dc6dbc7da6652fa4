/**
 * `npm run bench:boot`: what one server start costs, by phase, in a fresh process as a test file
 * (and a deployed instance) pays it, and again for later starts in the same process. Each round is
 * a new node process with the test command's flags (scripts/test.sh) that imports the test
 * harness, starts a server with it, then asks once for the parts that are built at first use
 * (the OpenAPI documents, MCP's tool list, a v2 call refused by its input schema) and stops.
 *
 * The baseline, measured in the same run: "first use" (those four requests and the key they
 * need) is where the deferred parts are now paid, once per process that asks; before, every
 * start paid them and first use cost only the requests. CPU is the process's own (all its
 * threads, process.cpuUsage), which is what the suite's few hundred starts add up to; wall time
 * is noisy on a shared machine. Run it under
 * `flock /tmp/bench.lock` beside other work. BENCH_BOOT_ROUNDS (default 5) fresh processes;
 * BENCH_BOOT_LATER (default 3) further starts in each, after the first.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.BENCH_BOOT_ROUNDS ?? 5);
const LATER = Number(process.env.BENCH_BOOT_LATER ?? 3);

/** Phases of one fresh process, in order: ms of CPU and of wall each. */
const PHASES = ['import', 'first start', 'first use', 'stop', 'later start'] as const;
type Phase = (typeof PHASES)[number];
type Sample = Record<Phase, { cpu: number; wall: number }>;

/** In the child: one fresh process's phases, printed as a JSON line. */
async function child(): Promise<void> {
  let cpu = process.cpuUsage();
  let wall = performance.now();
  const out: Partial<Sample> = {};
  const lap = (phase: Phase) => {
    const used = process.cpuUsage(cpu);
    out[phase] = { cpu: (used.user + used.system) / 1000, wall: performance.now() - wall };
    cpu = process.cpuUsage();
    wall = performance.now();
  };
  const { startServer } = await import('../test/helpers/server.js');
  lap('import');
  const server = await startServer();
  lap('first start');
  const { key } = await server.createKey({ credits: 100 });
  const asked = await Promise.all([
    server.call('GET', '/openapi/v1.json'),
    server.call('GET', '/openapi/v2.json'),
    server.call('POST', '/mcp', { key, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } }),
    server.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input: {} } }),
  ]);
  const expected = [200, 200, 200, 400];
  if (asked.some((r, i) => r.status !== expected[i])) throw new Error(`first use answered ${asked.map((r) => r.status).join(', ')}, expected ${expected.join(', ')}`);
  lap('first use');
  await server.close();
  lap('stop');
  let later = { cpu: 0, wall: 0 };
  for (let i = 0; i < LATER; i++) {
    const t = process.cpuUsage();
    const w = performance.now();
    const again = await startServer();
    const used = process.cpuUsage(t);
    later = { cpu: later.cpu + (used.user + used.system) / 1000 / LATER, wall: later.wall + (performance.now() - w) / LATER };
    await again.close();
  }
  out['later start'] = later;
  console.log(JSON.stringify(out));
}

function runChild(): Promise<Sample> {
  const proc = spawn(process.execPath, ['--no-node-snapshot', '--liftoff-only', '--import', 'tsx', import.meta.filename, '--child'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (b) => (out += b));
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`child exited ${code}: ${out.slice(-500)}`));
      else resolve(JSON.parse(line) as Sample);
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => `${median(xs).toFixed(0).padStart(5)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;

async function main(): Promise<void> {
  console.log(`bench:boot: ${ROUNDS} fresh processes, ${LATER} later starts each; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const samples: Sample[] = [];
  for (let i = 0; i < ROUNDS; i++) samples.push(await runChild());
  console.log(`${'phase'.padEnd(12)} ${'CPU ms, median (min–max)'.padEnd(26)} wall ms, median (min–max)`);
  for (const phase of PHASES) {
    console.log(`${phase.padEnd(12)} ${spread(samples.map((s) => s[phase].cpu)).padEnd(26)} ${spread(samples.map((s) => s[phase].wall))}`);
  }
  const start = samples.map((s) => s['first start'].cpu);
  const firstUse = samples.map((s) => s['first use'].cpu);
  const startAndImport = samples.map((s) => s.import.cpu + s['first start'].cpu);
  console.log(`a fresh process's import + first start: ${spread(startAndImport)} ms CPU`);
  console.log(`first use of the deferred parts: ${spread(firstUse)} ms CPU, ${(median(firstUse) / median(start)).toFixed(2)}× the first start's CPU (paid only by a process that asks)`);
  console.log(`load average after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

if (process.argv.includes('--child')) await child();
else await main();
