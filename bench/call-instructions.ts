/**
 * `npm run bench:instructions` (issue 29): the server's CPU per `POST /api/v2/run` as a count of
 * machine instructions, which does not move with the machine's load the way CPU time does, so two
 * versions of the code can be compared on a busy machine. Runs bench/instructions-server.ts with
 * the modules of BENCH_TREE (default this checkout: point it at a `git worktree` of another commit
 * to pair them) under valgrind's callgrind with counting off, warms it with BENCH_WARM calls, then
 * counts BENCH_REQUESTS calls made one at a time (so no batching depends on timing), then the
 * server left idle for BENCH_IDLE_SECONDS. Under valgrind a call takes about a second, so the
 * timers and pollers that run meanwhile would weigh as much as the call: their rate, measured idle,
 * is taken off. Prints instructions per call split into the program's own work (JavaScript, V8's
 * built-ins and runtime, libc), garbage collection and V8's optimising compiler (which still runs
 * while the code warms up, so it is printed apart and left out of the comparison).
 * PostgreSQL + Redis by default (a fresh database, dropped afterwards), so the database's work is
 * out of the count; BENCH_EMBEDDED=1 counts the embedded store instead (far slower under
 * valgrind). Needs valgrind (`apt-get install valgrind`); slow: minutes per run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { postgresBackend } from '../test/helpers/storage.js';

const TREE = resolve(process.env.BENCH_TREE ?? join(import.meta.dirname, '..'));
const WARM = Number(process.env.BENCH_WARM ?? 1500);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
const EMBEDDED = process.env.BENCH_EMBEDDED === '1';

/** Which part of the process a callgrind function belongs to, by its (C++) name. */
function categoryOf(fn: string): 'compiler' | 'gc' | 'program' {
  if (/compiler::|Maglev|maglev|turboshaft|OptimizedCompilationJob|Pipeline/.test(fn)) return 'compiler';
  if (/Marking|Sweep|Scaveng|Evacuat|RememberedSet|MemoryChunk|ActiveSystemPages|SlotSet|IteratePointers|SizeFromMap|ShouldVisit|Heap::|heap::|GCTracer|MarkCompact|popcount|Worklist|FreeList|PagedSpace/.test(fn)) return 'gc';
  return 'program';
}

/** Instructions of one callgrind dump, by category. */
function countsOf(file: string): Record<'compiler' | 'gc' | 'program' | 'total', number> {
  const out = { compiler: 0, gc: 0, program: 0, total: 0 };
  const text = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (!m || m[2]!.startsWith('PROGRAM TOTALS')) continue;
    const ir = Number(m[1]!.replace(/,/g, ''));
    out[categoryOf(m[2]!)] += ir;
    out.total += ir;
  }
  return out;
}

const dir = await mkdtemp(join(tmpdir(), 'cia-instructions-'));
const pg = EMBEDDED ? undefined : await postgresBackend();
const env: Record<string, string | undefined> = { ...process.env, BENCH_DATABASE_URL: pg?.env.DATABASE_URL, BENCH_REDIS_URL: pg?.env.REDIS_URL, BENCH_DATA_DIR: join(dir, 'data') };
const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'out')}`, process.execPath, '--no-node-snapshot', '--import', 'tsx', join(import.meta.dirname, 'instructions-server.ts'), TREE], { cwd: TREE, stdio: ['ignore', 'pipe', 'ignore'], env });
try {
  const line = await new Promise<string>((ok, fail) => {
    let buf = '';
    child.stdout!.on('data', (b) => {
      buf += b;
      const i = buf.indexOf('\n');
      if (i >= 0) ok(buf.slice(0, i));
    });
    child.once('exit', (c) => fail(new Error(`server exited ${c}`)));
  });
  const { url, key } = JSON.parse(line) as { url: string; key: string };
  const pool = new Pool(url, { connections: 1 });
  const body = JSON.stringify({ type: 'capability', id: 'test_echo', input: { text: 'hello' } });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const calls = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await pool.request({ method: 'POST', path: '/api/v2/run', headers, body });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`call answered ${res.statusCode}`);
    }
  };
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' });
  // Lets the last call's deferred work (usage rows, settlement batches) finish inside the count.
  const settle = () => new Promise((r) => setTimeout(r, 1500));
  await calls(WARM);
  await settle();
  control('--instr=on');
  control('--zero');
  const started = performance.now();
  await calls(REQUESTS);
  await settle();
  control('--dump=calls');
  const counted = (performance.now() - started) / 1000;
  control('--zero');
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  control('--dump=idle');
  await pool.close();
  const dumps = (await readdir(dir)).filter((f) => /^out\.\d+$/.test(f)).sort();
  const [calls1, idle] = dumps.map((f) => countsOf(join(dir, f)));
  // The idle server's own work (timers, pollers) over as long as the counted calls took, taken off.
  const idleRate = { program: idle!.program / IDLE_SECONDS, gc: idle!.gc / IDLE_SECONDS };
  const net = (part: 'program' | 'gc') => Math.max(0, calls1![part] - idleRate[part] * counted) / REQUESTS;
  const fmt = (n: number) => Math.round(n).toLocaleString('en');
  console.log(`instructions per POST /api/v2/run (${EMBEDDED ? 'embedded store' : 'PostgreSQL + Redis'}; tree ${TREE}; ${WARM} warm-up calls, ${REQUESTS} counted one at a time in ${counted.toFixed(0)} s)`);
  console.log(`  program ${fmt(net('program'))}  gc ${fmt(net('gc'))}  program + gc ${fmt(net('program') + net('gc'))}   (optimising compiler ${fmt(calls1!.compiler / REQUESTS)}, not counted)`);
  console.log(`  as counted, before the idle work is taken off: program ${fmt(calls1!.program / REQUESTS)}  gc ${fmt(calls1!.gc / REQUESTS)}`);
  console.log(`idle: ${fmt(idle!.total / IDLE_SECONDS)} instructions per second (program ${fmt(idleRate.program)}, gc ${fmt(idleRate.gc)})`);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await pg?.dispose();
  await rm(dir, { recursive: true, force: true });
}
