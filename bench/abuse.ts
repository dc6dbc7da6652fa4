/**
 * bench:abuse (issue 24): every attack of the bounded-work issue, run from one key against one
 * instance while a second key keeps making a small call of the same kind. Each attack is compared
 * with a quiet phase of the same victim calls measured in this run. Prints the victim's p50/p99
 * (quiet and under attack), `/healthz` p99, every tool's peak RSS and the instance's RSS before
 * and after, against the issue's targets. Loopback only; every phase is bounded in time.
 *
 * Run: npm run bench:abuse [-- seconds-per-attack=20 [words]] — with words, only the attacks whose
 * name contains one of them (case-insensitive) run, e.g. `-- 20 convert-to-pdf png`; the same words
 * may be given as BENCH_ATTACKS=convert,doc-to-text (either way, or both). The instance runs with
 * the deployment's malloc settings (BENCH_MALLOC=off: glibc's defaults) and passes
 * JSON_OFF_THREAD_BYTES, COMPUTE_NICE, COMPUTE_NICE_STEP, HELPER_THREADS_NICE, TOOLS_NICE, TOOLS_NICE_STEP, OFFICE_NICE, KEY_REQUESTS_IN_FLIGHT_MAX,
 * KEY_REFUSAL_HOLD_MS and KEY_REFUSALS_PER_SECOND through. Each phase also prints the serving thread's time on a core and
 * its time runnable but waiting for one (the kernel's schedstat): the wait is what tools at the
 * service's priority cause, and, unlike a latency, it is not timed across two loaded processes.
 * The attacker runs in a worker thread of its own (bench/abuse/attacker.ts), as another program
 * would; BENCH_ATTACKER=inline puts it back on the thread that times the victim, to compare. The
 * attacker's and the memory sampler's threads run BENCH_CLIENT_NICE (default 10; 0 as before)
 * below the timing thread, whose own wait for a core is printed per phase; BENCH_SAMPLER=inline
 * or =scan puts the sampler back on the timing thread (scan: reading every process of the host).
 */
import { setMaxListeners } from 'node:events';
import { Agent, request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TestServer } from '../test/helpers/server.js';
import { startFake } from '../plugins/extract/fake.js';
import { serveLoopback } from '../core/testing/index.js';
import { blankPagesPdf, deepJson, hlsPlaylist, objectStreamBombPdf, officeZipBomb, pngBomb, smallPng } from './abuse/payloads.js';
import { loop, memoryParts, MemorySampler, rssMb, servingThread, type Latencies, type SamplerReport } from './abuse/probes.js';
import { runAttackPlan, type AttackPlan } from './abuse/attacker.js';
import { startWorker } from '../core/util/worker-bundle.js';

const attackSeconds = Number(process.argv[2] ?? 20);
const only = [...process.argv.slice(3), ...(process.env.BENCH_ATTACKS ?? '').split(',')].map((w) => w.trim().toLowerCase()).filter(Boolean);
// The quiet baseline's length: longer gives the victim's quiet p99 more samples (BENCH_QUIET_SECONDS).
const quietSeconds = Number(process.env.BENCH_QUIET_SECONDS ?? 8);
const b64 = (b: Buffer) => b.toString('base64');
// BENCH_ATTACKER=inline runs the attacker on this thread, as before, to compare.
const inlineAttacker = process.env.BENCH_ATTACKER === 'inline';

/**
 * How many nice levels below this thread (which times the victim's calls and `/healthz`) the
 * attacker and sampler threads run (BENCH_CLIENT_NICE, default 10; 0: the same level, as before).
 * This process is one scheduling group (autogroup) whatever its threads' nice values, so its share
 * of the cores against the instance is unchanged; inside it, the timing thread goes before the
 * attacker's sends. With them at its level it waited for a core 1.6-3.5 s of a 22 s phase at load
 * 16 (its schedstat, printed per phase), part of which then counted as the instance's latency.
 */
const helperNice = Number(process.env.BENCH_CLIENT_NICE ?? 10);

/**
 * glibc's malloc settings for the instance: the deployment's (deploy/Dockerfile, deploy/cia.service)
 * unless MALLOC_* are given here; BENCH_MALLOC=off starts it with glibc's defaults, to compare.
 */
function mallocEnv(): Record<string, string | undefined> {
  if (process.env.BENCH_MALLOC === 'off') return {};
  const given = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('MALLOC_')));
  return Object.keys(given).length > 0 ? given : { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '262144' };
}

/** One attack: what the attacker sends (concurrently, until done or the phase ends) and the victim's matching call. */
interface Attack {
  name: string;
  /** Requests the attacker keeps in flight. */
  parallel: number;
  path: string;
  /** The body, serialised once and sent each time. */
  body?: () => unknown;
  /** The raw body instead of JSON (deep nesting). */
  raw?: () => string;
  /** The attacker sends this many requests in all (a flood) instead of holding `parallel` until the phase ends. */
  total?: number;
  /** A body that differs per request instead: `template` with each `token` replaced by a fresh random word. */
  fresh?: { template: string; token: string };
  victim: { path: string; body: unknown; method?: string };
}

/** Keeps connections open between calls, as a client would. */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/**
 * Sends one call and returns its status (the body is read and dropped). `raw`: the body's bytes,
 * already serialised. Sent with `node:http`, not `fetch`: fetch copies every body it sends, up to
 * 27 MB per request here, on the event loop that also times the victim and `/healthz`, so the bench
 * measured its own client's stalls along with the instance's.
 */
function call(server: TestServer, key: string, method: string, path: string, body: unknown, signal: AbortSignal, raw?: string | Uint8Array): Promise<number> {
  const bytes = raw ?? (body === undefined ? undefined : JSON.stringify(body));
  const headers: Record<string, string | number> = { authorization: `Bearer ${key}` };
  if (bytes !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(bytes) });
  return new Promise((resolve, reject) => {
    const req = request(server.url + path, { method, headers, agent, signal }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(bytes);
  });
}

/**
 * Runs the attacker's requests until `stop`; collects the statuses answered (aborted ones as "hung
 * up"). In a worker thread of its own unless BENCH_ATTACKER=inline (the old shape, to compare):
 * on this thread its callbacks delayed the victim's answers it times.
 */
async function runAttack(server: TestServer, key: string, a: Attack, stop: AbortSignal): Promise<Map<string, number>> {
  // The attacker's body is serialised once and sent as bytes: base64-encoding and stringifying up
  // to 27 MB per request is the attacker's own work, and in this bench it ran on the same two
  // cores as the instance it measures. Every attack but the made-up ids sends the same body each time.
  const plan: AttackPlan = { url: server.url, key, path: a.path, parallel: a.parallel, total: a.total };
  if (a.fresh) plan.fresh = a.fresh;
  else plan.body = Buffer.from(a.raw ? a.raw() : JSON.stringify(a.body!()));
  if (inlineAttacker) return runAttackPlan(plan, stop);
  const thread = startWorker(new URL('./abuse/attacker-thread.js', import.meta.url), { workerData: { nice: helperNice } });
  try {
    return await new Promise<Map<string, number>>((resolve, reject) => {
      thread.once('error', reject);
      thread.once('exit', (code) => reject(new Error(`the attacker thread exited with ${code}`)));
      thread.on('message', (m: 'ready' | [string, number][]) => {
        if (m !== 'ready') return resolve(new Map(m));
        // Sent before the phase ends or after: either way the thread stops.
        stop.addEventListener('abort', () => thread.postMessage('stop'), { once: true });
        thread.postMessage(plan);
        if (stop.aborted) thread.postMessage('stop');
      });
    });
  } finally {
    await thread.terminate();
  }
}

/** This process's CPU time in ms, its ended threads' included (utime + stime of /proc/self/stat). */
function processCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

/** CPU and run-queue wait (ms) of each thread of the instance, with its nice value, from /proc. */
function threadTimes(pid: number): Map<string, { cpuMs: number; waitMs: number; nice: number }> {
  const out = new Map<string, { cpuMs: number; waitMs: number; nice: number }>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
        out.set(tid, { cpuMs: run! / 1e6, waitMs: wait! / 1e6, nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) });
      } catch {
        // Ended while read.
      }
    }
  } catch {
    // The instance is gone.
  }
  return out;
}

/**
 * Where the instance's CPU went over a phase, besides the serving thread: its threads below the
 * service's nice (the compute workers, by the nice they had at the end) and the rest at the
 * service's own (V8's garbage-collector and compiler helpers, libuv's pool), which a compute
 * worker's nice does not lower.
 */
function threadSplit(pid: number, before: ReturnType<typeof threadTimes>): string {
  const own = threadTimes(pid).get(String(pid))?.nice ?? 0;
  const lowered = new Map<number, { n: number; cpuMs: number }>();
  let rest = 0;
  for (const [tid, t] of threadTimes(pid)) {
    if (tid === String(pid)) continue;
    const cpuMs = t.cpuMs - (before.get(tid)?.cpuMs ?? 0);
    if (t.nice === own) rest += cpuMs;
    else lowered.set(t.nice, { n: (lowered.get(t.nice)?.n ?? 0) + 1, cpuMs: (lowered.get(t.nice)?.cpuMs ?? 0) + cpuMs });
  }
  const parts = [...lowered].sort(([a], [b]) => a - b).map(([nice, g]) => `${g.n} at nice ${nice} ${g.cpuMs.toFixed(0)} ms`);
  return `other threads' CPU: ${parts.join(', ') || 'none lowered'}; at the service's nice ${rest.toFixed(0)} ms`;
}

/** The serving thread's garbage collections so far by kind (prom-client's `gc_duration_seconds`, the main isolate only): seconds and count. */
async function gcTotals(server: TestServer): Promise<Map<string, { s: number; n: number }>> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.adminToken}` } })).text();
  const out = new Map<string, { s: number; n: number }>();
  for (const m of text.matchAll(/^cia_nodejs_gc_duration_seconds_(sum|count)\{kind="(\w+)"\} ([\d.e+-]+)$/gm)) {
    const t = out.get(m[2]!) ?? { s: 0, n: 0 };
    if (m[1] === 'sum') t.s = Number(m[3]);
    else t.n = Number(m[3]);
    out.set(m[2]!, t);
  }
  return out;
}

/** The serving thread's collections over a phase, e.g. `major 12× 340 ms`. */
function gcSplit(before: Map<string, { s: number; n: number }>, after: Map<string, { s: number; n: number }>): string {
  const parts = [...after].map(([kind, t]) => ({ kind, n: t.n - (before.get(kind)?.n ?? 0), ms: 1000 * (t.s - (before.get(kind)?.s ?? 0)) })).filter((p) => p.n > 0);
  return `serving thread's GC: ${parts.map((p) => `${p.kind} ${p.n}× ${p.ms.toFixed(0)} ms`).join(', ') || 'none'}`;
}

/**
 * The serving thread's V8 heap (total and used) and the memory it holds outside it (buffers), from
 * `/metrics`: what of the instance's RSS its JavaScript holds, as against malloc arenas, worker
 * threads and code.
 */
async function heapParts(server: TestServer): Promise<string> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.adminToken}` } })).text();
  const mb = (name: string) => Number(new RegExp(`^cia_nodejs_${name} ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN) / 1048576;
  return `serving thread's heap ${mb('heap_size_total_bytes').toFixed(0)} MB (${mb('heap_size_used_bytes').toFixed(0)} used), external ${mb('external_memory_bytes').toFixed(0)} MB`;
}

/** The memory sampler of each attack phase: start, then stop answers what the phase saw. */
interface Sampler {
  start(): Promise<void>;
  stop(): Promise<SamplerReport>;
  close(): Promise<void>;
}

/**
 * Runs the sampler in a worker thread of its own: its /proc reads every 100 ms (1–12 ms each
 * under load) ran on this thread, which times the victim's calls and `/healthz`, during the
 * attack phases only. BENCH_SAMPLER=inline (or `scan`, which also reads every process of the
 * host, as before) keeps it on this thread, to compare.
 */
async function startSampler(pid: number): Promise<Sampler> {
  if (process.env.BENCH_SAMPLER === 'inline' || process.env.BENCH_SAMPLER === 'scan') {
    const s = new MemorySampler(pid);
    return { start: async () => s.start(), stop: async () => (s.stop(), s.report()), close: async () => {} };
  }
  const thread = startWorker(new URL('./abuse/sampler-thread.js', import.meta.url), { workerData: { nice: helperNice } });
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      const onError = (err: unknown) => reject(err);
      thread.once('error', onError);
      thread.once('message', (m) => {
        thread.off('error', onError);
        resolve(m);
      });
    });
  await next(); // 'ready'
  thread.postMessage(pid);
  await next(); // 'started'
  return {
    start: async () => thread.postMessage('start'),
    stop: async () => {
      const answer = next();
      thread.postMessage('stop');
      return (await answer) as SamplerReport;
    },
    close: async () => void (await thread.terminate()),
  };
}

const fmt = (l: Latencies) => `p50 ${l.p50.toFixed(0)} ms, p99 ${l.p99.toFixed(0)} ms (${l.count} calls${l.errors ? `, ${l.errors} failed` : ''})`;

async function main() {
  console.log(`bench:abuse — building the payloads…`);
  const [docBomb, pdfBomb, imageBomb, tinyPng] = await Promise.all([officeZipBomb(), objectStreamBombPdf(), pngBomb(), smallPng()]);
  const thousands = blankPagesPdf(5000);
  const onePage = blankPagesPdf(1);
  const docx = readFileSync(join(import.meta.dirname, '..', 'test', 'fixtures', 'documents', 'writer.docx'));
  // 400 MB of "audio" served from loopback, streamed so this process never holds it.
  const big = Buffer.alloc(1 << 20);
  const site = await serveLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(400 * big.length) });
    let sent = 0;
    const pump = () => {
      while (sent < 400) {
        sent += 1;
        if (!res.write(big)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => (sent = 400));
    pump();
  });
  const model = await startFake();
  const server = await startServer({
    processMode: true,
    // A session of its own, as a deployed service has (systemd, a container's init): where the
    // kernel schedules by session (autogroup), an instance left in this one shared a single CPU
    // share with this client's own work (the attacker's bodies, the 400 MB origin, the probes),
    // which no deployment does. BENCH_SHARED_SESSION=true keeps the old shape, to compare.
    ownSession: process.env.BENCH_SHARED_SESSION !== 'true',
    // JSON_OFF_THREAD_BYTES and COMPUTE_NICE pass through, so a run can compare large bodies parsed on and off the serving thread, at one priority or below it.
    // glibc reads its malloc settings only when a process starts: the instance gets them here.
    env: {
      ...model.env,
      ALLOW_PRIVATE_NETWORK: 'true',
      LOG_LEVEL: 'info',
      DOCUMENTS_PREWARM: 'true',
      JSON_OFF_THREAD_BYTES: process.env.JSON_OFF_THREAD_BYTES,
      COMPUTE_NICE: process.env.COMPUTE_NICE,
      COMPUTE_NICE_STEP: process.env.COMPUTE_NICE_STEP,
      HELPER_THREADS_NICE: process.env.HELPER_THREADS_NICE,
      // The tools' and LibreOffice's priority, to compare them niced and at the service's in one tree.
      TOOLS_NICE: process.env.TOOLS_NICE,
      TOOLS_NICE_STEP: process.env.TOOLS_NICE_STEP,
      OFFICE_NICE: process.env.OFFICE_NICE,
      // The per-key cap on requests in progress and the hold of refused ones, to compare settings in one tree.
      KEY_REQUESTS_IN_FLIGHT_MAX: process.env.KEY_REQUESTS_IN_FLIGHT_MAX,
      KEY_REFUSAL_HOLD_MS: process.env.KEY_REFUSAL_HOLD_MS,
      // The pace of a key's refused lookups (404, 429 RATE_LIMITED): 0 turns it off, to compare in one tree.
      KEY_REFUSALS_PER_SECOND: process.env.KEY_REFUSALS_PER_SECOND,
      ...mallocEnv(),
    },
  });
  // Its own session is not ended with this process's group: a bench that dies stops it here.
  process.once('exit', () => {
    try {
      process.kill(server.pid);
    } catch {
      // Already gone.
    }
  });
  const victim = (await server.createKey({ name: 'victim', credits: 1_000_000_000, rateLimitPerMinute: 1_000_000 })).key;
  const sampler = await startSampler(server.pid);

  const attacks: Attack[] = [
    { name: 'office zip bomb → convert-to-pdf (8 at once)', parallel: 8, path: '/api/v1/convert-to-pdf', body: () => ({ inputMethod: 'base64', file: b64(docBomb) }), victim: { path: '/api/v1/convert-to-pdf', body: { inputMethod: 'base64', file: b64(docx) } } },
    { name: 'office zip bomb → doc-to-text (4 at once)', parallel: 4, path: '/api/v1/doc-to-text', body: () => ({ inputMethod: 'base64', file: b64(docBomb), fileExtension: 'docx' }), victim: { path: '/api/v1/doc-to-text', body: { inputMethod: 'base64', file: b64(docx), fileExtension: 'docx' } } },
    { name: 'PDF object-stream bomb ×4 → merge-pdfs', parallel: 2, path: '/api/v1/merge-pdfs', body: () => ({ inputMethod: 'base64', files: Array(4).fill(b64(pdfBomb)) }), victim: { path: '/api/v1/merge-pdfs', body: { inputMethod: 'base64', files: [b64(onePage), b64(onePage)] } } },
    { name: '16000×16000 PNG ×20 → extract-image', parallel: 2, path: '/api/v1/extract-image', body: () => ({ inputMethod: 'base64', images: Array(20).fill(b64(imageBomb)), prompt: 'What is this?' }), victim: { path: '/api/v1/extract-image', body: { inputMethod: 'base64', images: [b64(tinyPng)], prompt: 'What is this?' } } },
    { name: '5,000 blank pages → doc-to-text (OCR)', parallel: 2, path: '/api/v1/doc-to-text', body: () => ({ inputMethod: 'base64', file: b64(thousands) }), victim: { path: '/api/v1/doc-to-text', body: { inputMethod: 'base64', file: b64(onePage) } } },
    { name: '400 MB by URL ×3 → extract-audio', parallel: 3, path: '/api/v1/extract-audio', body: () => ({ inputMethod: 'url', audio: `${site.url}/big.mp3`, prompt: 'Summarise.' }), victim: { path: '/api/v1/doc-to-text', body: { inputMethod: 'base64', file: b64(docx), fileExtension: 'docx' } } },
    { name: 'HLS playlist as audio → extract-audio', parallel: 1, total: 20, path: '/api/v1/extract-audio', body: () => ({ inputMethod: 'base64', audio: b64(hlsPlaylist()), prompt: 'Summarise.' }), victim: { path: '/api/v2/balance', body: undefined, method: 'GET' } },
    { name: '10,000-level JSON ×500 → v1 routes', parallel: 4, total: 500, path: '/api/v1/doc-to-text', raw: () => deepJson(), victim: { path: '/api/v2/balance', body: undefined, method: 'GET' } },
    { name: '5,000 unknown ids → /api/v2/run', parallel: 8, total: 5000, path: '/api/v2/run', fresh: { template: JSON.stringify({ type: 'capability', id: 'made_up_RANDOM', input: {} }), token: 'RANDOM' }, victim: { path: '/api/v2/balance', body: undefined, method: 'GET' } },
  ];

  // A filter keeps a measuring run short; the quiet phases and warm-up cover only the attacks run.
  if (only.length > 0) attacks.splice(0, attacks.length, ...attacks.filter((a) => only.some((w) => a.name.toLowerCase().includes(w))));
  const metricsSize = async () => (await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.adminToken}` } })).text()).length;
  // Warm every victim path once so first-call costs do not count as the attack's.
  for (const a of attacks) await call(server, victim, a.victim.method ?? 'POST', a.victim.path, a.victim.body, AbortSignal.timeout(120_000));
  // One large body (parsed in a compute worker, refused free: random bytes are no PDF) starts the
  // compute pool, which every victim body is too small to start: its threads are the engine's
  // standing cost, not memory an attack left behind.
  await call(server, victim, 'POST', '/api/v1/read-pdf-metadata', { inputMethod: 'base64', file: randomBytes(300_000).toString('base64') }, AbortSignal.timeout(120_000));
  await new Promise((r) => setTimeout(r, 2000));
  const rssStart = rssMb(server.pid)!;
  const partsStart = `${memoryParts(server.pid)}; ${await heapParts(server)}`;
  const metricsBefore = await metricsSize();
  console.log(`instance pid ${server.pid}, RSS after warm-up ${rssStart.toFixed(0)} MB; ${attackSeconds} s per attack, ${quietSeconds} s quiet baseline each\n`);

  const rows: string[] = [];
  let healthOk = true;
  let victimOk = true;
  let toolsOk = true;
  const caps: Record<string, number> = { 'soffice.bin': 1536, ffmpeg: 1024, ffprobe: 1024, tesseract: 1024, pdftoppm: 1024, qpdf: 1024 };
  for (const a of attacks) {
    const victimCall = (signal: AbortSignal) => call(server, victim, a.victim.method ?? 'POST', a.victim.path, a.victim.body, signal);
    const quietStop = AbortSignal.timeout(quietSeconds * 1000);
    setMaxListeners(0, quietStop);
    const gcQuietBefore = await gcTotals(server);
    const quiet = await loop(victimCall, quietStop);
    const gcQuiet = gcSplit(gcQuietBefore, await gcTotals(server));

    // Each attack comes from a fresh ordinary key (the deployment's default rate limit, so one
    // attack does not spend the next one's minute); the victim's limit is out of the way.
    const attacker = (await server.createKey({ name: 'attacker', credits: 1_000_000_000 })).key;
    await sampler.start();
    const threadsBefore = threadTimes(server.pid);
    const clientBefore = servingThread(process.pid);
    const clientProcessBefore = processCpuMs();
    const gcBefore = await gcTotals(server);
    const stop = new AbortController();
    // Every call of the phase listens to it; thousands of short calls are expected, not a leak.
    setMaxListeners(0, stop.signal);
    const phase = setTimeout(() => stop.abort(), attackSeconds * 1000);
    const healthLoop = loop((s) => fetch(server.url + '/healthz', { signal: s }).then(async (r) => (await r.arrayBuffer(), r.status)), stop.signal, 100);
    const attackDone = runAttack(server, attacker, a, stop.signal).then((s) => {
      // A flood that finished early ends the phase once the victim has had a few seconds.
      if (a.total !== undefined) setTimeout(() => stop.abort(), 3000);
      return s;
    });
    const underAttack = await loop(victimCall, stop.signal);
    const statuses = await attackDone;
    const h = await healthLoop;
    clearTimeout(phase);
    const split = threadSplit(server.pid, threadsBefore);
    const clientAfter = servingThread(process.pid);
    const client = clientBefore && clientAfter ? { cpuMs: clientAfter.cpuMs - clientBefore.cpuMs, waitMs: clientAfter.waitMs - clientBefore.waitMs } : undefined;
    // The attacker's and the sampler's threads (and Node's own) in this process, over the phase:
    // the process's time (which keeps that of threads already ended) less the timing thread's.
    const clientOthersMs = processCpuMs() - clientProcessBefore - (client?.cpuMs ?? 0);
    const gc = gcSplit(gcBefore, await gcTotals(server));
    await new Promise((r) => setTimeout(r, 2000));
    const seen = await sampler.stop();

    const heap = await heapParts(server);
    const ratio = underAttack.p99 / quiet.p99;
    healthOk &&= h.p99 <= 100 && h.errors === 0;
    victimOk &&= ratio <= 3;
    const tools = [...seen.peaks].map(([t, mb]) => {
      const over = caps[t] !== undefined && mb > caps[t]!;
      toolsOk &&= !over;
      return `${t} ${mb.toFixed(0)} MB${over ? ' (over cap)' : ''}`;
    });
    const th = seen.thread;
    const niced = [...seen.priorities].filter(([t]) => t !== 'python3').map(([t, p]) => `${t} ${[...p].join(',')}`);
    rows.push(
      [
        `■ ${a.name}`,
        `  attacker got: ${[...statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}`,
        `  victim quiet ${fmt(quiet)}; under attack ${fmt(underAttack)}; p99 ratio ${ratio.toFixed(2)}× (target ≤ 3×)`,
        `  /healthz under attack ${fmt(h)} (target p99 ≤ 100 ms)`,
        `  serving thread: ${th ? `${th.cpuMs.toFixed(0)} ms on a core, ${th.waitMs.toFixed(0)} ms runnable waiting for one (${((100 * th.waitMs) / th.phaseMs).toFixed(1)}% of the ${(th.phaseMs / 1000).toFixed(0)} s phase; ${(th.waitMs / Math.max(1, th.slices)).toFixed(2)} ms per wake-up)` : 'unreadable'}; tools' nice/group nice: ${niced.join('; ') || 'none seen'}`,
        `  this bench's timing thread (victim calls, /healthz): ${client ? `${client.cpuMs.toFixed(0)} ms on a core, ${client.waitMs.toFixed(0)} ms waiting for one` : 'unreadable'}; its other threads (attacker, sampler, Node's) ${clientOthersMs.toFixed(0)} ms at nice +${helperNice} for attacker and sampler`,
        `  ${split}; ${gc} (quiet phase: ${gcQuiet.replace("serving thread's GC: ", '')})`,
        `  peak RSS: instance ${seen.instancePeak.toFixed(0)} MB (${rssMb(server.pid)!.toFixed(0)} MB 2 s after: ${heap})${tools.length ? '; ' + tools.join(', ') : '; no tool process seen'}`,
      ].join('\n'),
    );
    console.log(rows.at(-1) + '\n');
  }

  await new Promise((r) => setTimeout(r, 5000));
  const rssSoon = rssMb(server.pid)!;
  const partsSoon = `${memoryParts(server.pid)}; ${await heapParts(server)}`;
  // Surge threads (PDF, JavaScript) end after 30 s idle: the RSS the instance settles at is read after that.
  await new Promise((r) => setTimeout(r, 31_000));
  const rssEnd = rssMb(server.pid)!;
  const metricsAfter = await metricsSize();
  const rssOk = rssEnd - rssStart <= 100;
  console.log(`instance RSS: ${rssStart.toFixed(0)} MB at start; 5 s after the last attack ${rssSoon.toFixed(0)} MB (+${(rssSoon - rssStart).toFixed(0)}; ${partsSoon})`);
  console.log(`instance RSS 36 s after: ${rssEnd.toFixed(0)} MB (+${(rssEnd - rssStart).toFixed(0)} MB; target ≤ +100) ${rssOk ? 'OK' : 'MISSED'}`);
  console.log(`  36 s after: ${memoryParts(server.pid)}; ${await heapParts(server)}; at start: ${partsStart}`);
  console.log(`/metrics: ${(metricsBefore / 1024).toFixed(0)} KB before, ${(metricsAfter / 1024).toFixed(0)} KB after`);
  console.log(`targets: /healthz p99 ≤ 100 ms ${healthOk ? 'OK' : 'MISSED'}; victim p99 ≤ 3× quiet ${victimOk ? 'OK' : 'MISSED'}; tools under their caps ${toolsOk ? 'OK' : 'MISSED'}; RSS ${rssOk ? 'OK' : 'MISSED'}`);
  await sampler.close();
  await server.close();
  await model.close();
  await site.close();
}

await main();
