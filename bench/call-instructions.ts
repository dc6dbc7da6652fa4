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
 *
 * BENCH_CALL picks the call counted: `run` (default, a served capability), `unknown-id` (issue 24's
 * made-up ids: a fresh unknown capability id each time, a free 404) or `rate-limited` (the same
 * body from a key allowed one request a minute: the free 429 RATE_LIMITED that most of
 * bench:abuse's made-up-ids flood gets). Calls answered otherwise are counted and printed: a
 * minute's boundary lets one rate-limited call through. BENCH_TOP=n also prints the n functions
 * with the most instructions of their own per call, to see where a count went.
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
const CALL = process.env.BENCH_CALL ?? 'run';
const TOP = Number(process.env.BENCH_TOP ?? 0);
/** The status each kind of call is expected to answer. */
const EXPECTED: Record<string, number> = { run: 200, 'unknown-id': 404, 'rate-limited': 429 };
if (!(CALL in EXPECTED)) throw new Error(`BENCH_CALL must be one of ${Object.keys(EXPECTED).join(', ')}`);

/** Which part of the process a callgrind function belongs to, by its (C++) name. */
function categoryOf(fn: string): 'compiler' | 'gc' | 'program' {
  if (/compiler::|Maglev|maglev|turboshaft|OptimizedCompilationJob|Pipeline/.test(fn)) return 'compiler';
  if (/Marking|Sweep|Scaveng|Evacuat|RememberedSet|MemoryChunk|ActiveSystemPages|SlotSet|IteratePointers|SizeFromMap|ShouldVisit|Heap::|heap::|GCTracer|MarkCompact|popcount|Worklist|FreeList|PagedSpace/.test(fn)) return 'gc';
  return 'program';
}

/** The `n` functions of a callgrind dump with the most instructions of their own, per call. */
function topOf(file: string, n: number, calls: number): string {
  const text = execFileSync('callgrind_annotate', ['--inclusive=no', `--threshold=99`, file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const rows: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (!m || m[2]!.startsWith('PROGRAM TOTALS')) continue;
    rows.push(`${Math.round(Number(m[1]!.replace(/,/g, '')) / calls).toLocaleString('en').padStart(10)}  ${m[2]!.slice(0, 160)}`);
    if (rows.length >= n) break;
  }
  return rows.join('\n');
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

/** A key allowed one request a minute, so nearly every counted call is refused 429. */
async function limitedKey(url: string): Promise<string> {
  const res = await fetch(`${url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'rate-limited', credits: 1000, rateLimitPerMinute: 1 }),
  });
  if (!res.ok) throw new Error(`creating the rate-limited key failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
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
  const { url, key: benchKey } = JSON.parse(line) as { url: string; key: string };
  const pool = new Pool(url, { connections: 1 });
  // The rate-limited calls' key: made here with the admin token instructions-server.ts sets, so an older tree's server serves it too.
  const key = CALL === 'rate-limited' ? await limitedKey(url) : benchKey;
  const bodyOf = () => JSON.stringify({ type: 'capability', id: CALL === 'unknown-id' ? `made_up_${Math.random().toString(36).slice(2)}` : 'test_echo', input: { text: 'hello' } });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const others = new Map<number, number>();
  const calls = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await pool.request({ method: 'POST', path: '/api/v2/run', headers, body: bodyOf() });
      await res.body.arrayBuffer();
      if (res.statusCode === EXPECTED[CALL]) continue;
      if (CALL === 'run') throw new Error(`call answered ${res.statusCode}`);
      others.set(res.statusCode, (others.get(res.statusCode) ?? 0) + 1);
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
  const otherText = others.size > 0 ? `; answered otherwise over the whole run: ${[...others].map(([st, n]) => `${n}× ${st}`).join(', ')}` : '';
  console.log(`instructions per POST /api/v2/run, ${CALL} (${EXPECTED[CALL]}${otherText}) (${EMBEDDED ? 'embedded store' : 'PostgreSQL + Redis'}; tree ${TREE}; ${WARM} warm-up calls, ${REQUESTS} counted one at a time in ${counted.toFixed(0)} s)`);
  console.log(`  program ${fmt(net('program'))}  gc ${fmt(net('gc'))}  program + gc ${fmt(net('program') + net('gc'))}   (optimising compiler ${fmt(calls1!.compiler / REQUESTS)}, not counted)`);
  console.log(`  as counted, before the idle work is taken off: program ${fmt(calls1!.program / REQUESTS)}  gc ${fmt(calls1!.gc / REQUESTS)}`);
  if (TOP > 0) console.log(`top ${TOP} functions by their own instructions per call (idle work not taken off):\n${topOf(join(dir, dumps[0]!), TOP, REQUESTS)}`);
  console.log(`idle: ${fmt(idle!.total / IDLE_SECONDS)} instructions per second (program ${fmt(idleRate.program)}, gc ${fmt(idleRate.gc)})`);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await pg?.dispose();
  await rm(dir, { recursive: true, force: true });
}
