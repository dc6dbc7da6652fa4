/**
 * `npm run bench:idle`: resident memory (RSS) of one service process on the embedded store,
 * right after boot and after a few seconds idle, on an empty DATA_DIR (first boot) and again on
 * the same directory (a restart); against a bare Fastify process measured in the same run
 * (issue 18 target: ≤ 400 MB idle RSS with default settings). By default both run from source
 * under tsx (whose loader alone costs ~100 MB); BENCH_BUILT_DIR=<tsc outDir> runs the built code
 * with plain node, as `npm start` does. Issue 27 adds the CPU the idle process spends (its timers,
 * the job queue's polling, the embedded database thread): ms of CPU per second over the second half of the idle window.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5000);
const BUILT = process.env.BENCH_BUILT_DIR;

/** CPU ms used so far by a process (all its threads; utime + stime), from /proc. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // USER_HZ is 100 on Linux
}

/** RSS of a process in MB, from /proc. */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function boot(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const [entry, ...rest] = args;
  const argv = BUILT ? [join(BUILT, entry!.replace(/\.ts$/, '.js')), ...rest] : ['--import', 'tsx', entry!, ...rest];
  const child = spawn(process.execPath, ['--no-node-snapshot', ...argv], { cwd: ROOT, env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b) => {
      out += b;
      if (/listening on|^\{"url"/m.test(out)) resolve();
    });
    child.once('exit', (c) => reject(new Error(`exited ${c}: ${out.slice(-500)}`)));
  });
  return child;
}

async function measure(label: string, args: string[], env: Record<string, string>): Promise<{ boot: number; idle: number; cpu: number }> {
  const child = await boot(args, env);
  const atBoot = rssMb(child.pid!);
  // The first half of the idle window still compiles and warms up (V8 tiers up the code that
  // ran at boot, the database thread its WebAssembly): CPU is counted over the second half.
  await new Promise((r) => setTimeout(r, IDLE_MS / 2));
  const cpu0 = cpuMs(child.pid!);
  await new Promise((r) => setTimeout(r, IDLE_MS / 2));
  const cpu = (cpuMs(child.pid!) - cpu0) / (IDLE_MS / 2000);
  const idle = rssMb(child.pid!);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  console.log(`${label.padEnd(34)} RSS at boot ${atBoot.toFixed(0).padStart(5)} MB   after ${IDLE_MS / 1000} s idle ${idle.toFixed(0).padStart(5)} MB   idle CPU ${cpu.toFixed(1).padStart(5)} ms/s`);
  return { boot: atBoot, idle, cpu };
}

const bare = await measure('bare fastify', ['bench/gateway-server.ts', 'bare'], {});
const dataDir = await mkdtemp(join(tmpdir(), 'cia-idle-'));
try {
  const env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  const first = await measure('service, embedded, first boot', ['server/main.ts'], env);
  const again = await measure('service, embedded, restart', ['server/main.ts'], env);
  const worst = Math.max(first.idle, again.idle);
  console.log(BUILT ? 'built code, plain node' : 'source under tsx');
  console.log(`idle CPU: ${Math.max(first.cpu, again.cpu).toFixed(1)} ms per second (bare Fastify ${bare.cpu.toFixed(1)}; load average ${loadavg()[0]!.toFixed(1)})`);
  console.log(`idle RSS: ${worst.toFixed(0)} MB (target <= 400 MB: ${worst <= 400 ? 'met' : 'NOT met'}); ${(worst / bare.idle).toFixed(1)}x a bare Fastify process (${bare.idle.toFixed(0)} MB)`);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
