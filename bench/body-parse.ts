/**
 * bench:body-parse (issue 24): what a flood of large base64 JSON bodies costs the thread that
 * answers every request, with those bodies parsed on that thread and with them parsed in a
 * compute worker (JSON_OFF_THREAD_BYTES). The server runs in its own process, so the client's
 * work is not counted as the server's (fetch copies every body it sends: 27 MB a request);
 * bodies are built once and written with node:http, which sends the bytes as they are. The
 * server's event-loop delay during the flood is read from its /metrics (prom-client's monitor,
 * reset at each read), and the server's CPU time per body it read, the serving thread's apart
 * (from /proc). Both runs happen back to back on the same machine: compare their ratio, not the
 * absolute figures (which depend on the load, printed with each run).
 *
 * Run: npm run bench:body-parse [-- bodies=40 images=20 [worker|both] [v1|v2|mcp]] — `worker`: the
 * second run only; the lane (default v1): `v2` sends the files as one file of `images` MB to
 * `/api/v2/run` (doc_to_text told it is a PDF: a 400 from its first bytes), `mcp` as a `tools/call` of read_pdf_metadata (a tool error).
 * BENCH_CPU_PROF=<module>: the server imports it first (NODE_OPTIONS --import; --cpu-prof is not
 * allowed there), e.g. a module that starts the inspector's profiler.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { randomBytes } from 'node:crypto';
import { startServer, type TestServer } from '../test/helpers/server.js';

const bodies = Number(process.argv[2] ?? 40);
const images = Number(process.argv[3] ?? 20);
const workerOnly = process.argv[4] === 'worker';
const lane = (process.argv[5] ?? 'v1') as 'v1' | 'v2' | 'mcp';
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

/** POSTs `body` as it is (no copy) on `agent`'s connections; resolves with the status once the answer is read. */
function post(url: string, key: string, body: Buffer, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The server's event-loop delay since the last read, from its /metrics (seconds → ms). */
async function loopDelay(server: TestServer): Promise<Record<string, number>> {
  const text = (await server.call('GET', '/metrics', { key: server.adminToken })).text;
  const read = (name: string) => Number(new RegExp(`^cia_nodejs_eventloop_lag_${name}_seconds (\\S+)`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p50: read('p50'), p99: read('p99'), max: read('max') };
}

/**
 * CPU time (ms) the server process has used, and its serving thread alone (the task whose id is
 * the process id), from /proc: less sensitive to the machine's load than the latencies are.
 */
function cpuMs(pid: number): { process: number; thread: number } {
  const read = (path: string) => {
    const stat = readFileSync(path, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  };
  return { process: read(`/proc/${pid}/stat`), thread: read(`/proc/${pid}/task/${pid}/stat`) };
}

/** One run: `bodies` requests (two at a time) of `images` 1 MB base64 files each, while /healthz is polled. */
async function run(offThreadBytes: string, profile: string | undefined): Promise<string> {
  // LOG_LEVEL info, as bench:abuse and a deployment run (the helper also waits for its 'listening on' line).
  const server = await startServer({
    processMode: true,
    env: { JSON_OFF_THREAD_BYTES: offThreadBytes, LOG_LEVEL: 'info', ...(profile ? { NODE_OPTIONS: `--import=${profile}`, CPUPROF_DIR: process.env.CPUPROF_DIR } : {}) },
  });
  const { key } = await server.createKey({ credits: 1_000_000, rateLimitPerMinute: 1_000_000 });
  // Random bytes: valid base64 that is not a PDF, so each call decodes its files and is refused (free 400).
  const files = () => Array.from({ length: images }, () => randomBytes(1_000_000).toString('base64'));
  const input = lane === 'v2' ? { inputMethod: 'base64', file: randomBytes(images * 1_000_000).toString('base64'), fileExtension: 'pdf' } : { inputMethod: 'base64', files: files() };
  const sent = lane === 'v1' ? input : lane === 'v2' ? { type: 'capability', id: 'doc_to_text', input } : { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_pdf_metadata', arguments: input } };
  const body = Buffer.from(JSON.stringify(sent));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const url = `${server.url}${lane === 'v1' ? '/api/v1/read-pdf-metadata' : lane === 'v2' ? '/api/v2/run' : '/mcp'}`;
  await post(url, key, body, agent);
  await loopDelay(server);
  const loadBefore = load();
  const health: number[] = [];
  let stop = false;
  const poll = (async () => {
    while (!stop) {
      const t0 = performance.now();
      await fetch(`${server.url}/healthz`).then((r) => r.arrayBuffer());
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const statuses = new Map<number, number>();
  let left = bodies;
  const cpu0 = cpuMs(server.pid);
  const t0 = performance.now();
  await Promise.all(
    [0, 1].map(async () => {
      while (left-- > 0) {
        const s = await post(url, key, body, agent);
        statuses.set(s, (statuses.get(s) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = cpuMs(server.pid);
  stop = true;
  await poll;
  const delay = await loopDelay(server);
  agent.destroy();
  await server.close();
  health.sort((a, b) => a - b);
  const read = Math.max(1, statuses.get(lane === 'mcp' ? 200 : 400) ?? 0);
  const pct = (p: number) => health[Math.min(health.length - 1, Math.floor((p / 100) * health.length))]!;
  return [
    `  ${bodies} bodies of ${(body.length / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s (${[...statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}); load average ${loadBefore} before, ${load()} after`,
    // Per body read (the 400s; on MCP, whose tool errors are 200s, those): a 429 is refused before its body is parsed.
    `  server CPU per body read: ${((cpu1.process - cpu0.process) / read).toFixed(0)} ms, of which the serving thread ${((cpu1.thread - cpu0.thread) / read).toFixed(0)} ms`,
    `  server event-loop delay p50 ${delay.p50!.toFixed(0)} ms, p99 ${delay.p99!.toFixed(0)} ms, max ${delay.max!.toFixed(0)} ms`,
    `  /healthz p50 ${pct(50).toFixed(0)} ms, p99 ${pct(99).toFixed(0)} ms (${health.length} calls)`,
  ].join('\n');
}

const profile = process.env.BENCH_CPU_PROF;
if (!workerOnly) {
  console.log(`bench:body-parse (${lane}) — large base64 bodies parsed on the serving thread:`);
  console.log(await run(String(1 << 30), profile));
}
console.log('…and in a compute worker (JSON_OFF_THREAD_BYTES default):');
console.log(await run('262144', profile));
