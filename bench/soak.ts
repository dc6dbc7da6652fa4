/**
 * `npm run bench:soak` (issue 18): two instances on PostgreSQL + Redis under a mixed load for a
 * bounded time (SOAK_SECONDS, default 120), loopback only, with the second instance restarted
 * half-way. Prints requests by status, every answer that is neither a success nor a 4xx/429,
 * the credits the clients were told they paid against the ledger and the usage log (the ledger
 * and the usage log must match exactly), and RSS and open fds of each instance at start and end.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { serveLoopback } from '../core/testing/index.js';
import { startServer, type TestServer } from '../test/helpers/server.js';
import { postgresBackend } from '../test/helpers/storage.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 8);

/** RSS (MB) and open file descriptors of a process. */
function footprint(pid: number): { rssMb: number; fds: number } {
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { rssMb: Math.round(Number(rss) / 1024), fds: readdirSync(`/proc/${pid}/fd`).length };
}

const page = await serveLoopback((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<html><head><title>Soak</title></head><body><h1>Soak page</h1><p>Some text to convert.</p></body></html>');
});
const html = Buffer.from('<html><body><h1>Soak document</h1><p>Converted under load.</p></body></html>').toString('base64');

/** One request of the mix: method, path and body (a string is sent raw). */
type Job = { name: string; method: 'GET' | 'POST'; path: string; body?: unknown; key?: 'bad' };
const MIX: Job[] = [
  { name: 'v2 scrape', method: 'POST', path: '/api/v2/run', body: { type: 'capability', id: 'scrape_page', input: { url: page.url, renderJs: false } } },
  { name: 'v1 locations', method: 'GET', path: '/api/v1/engine-locations?q=London' },
  { name: 'v1 scrape', method: 'POST', path: '/api/v1/scrape', body: { url: page.url, renderJs: false, format: 'markdown' } },
  { name: 'js', method: 'POST', path: '/api/v1/run-js-code', body: { code: 'console.log(1 + 1)' } },
  { name: 'python', method: 'POST', path: '/api/v1/run-python-code', body: { code: 'print(2 + 2)' } },
  { name: 'convert', method: 'POST', path: '/api/v1/convert-to-pdf', body: { inputMethod: 'base64', file: html } },
  { name: 'malformed json', method: 'POST', path: '/api/v1/scrape', body: '{"url": ' },
  { name: 'bad field', method: 'POST', path: '/api/v2/run', body: { type: 'capability', id: 'scrape_page', input: { url: 42 } } },
  { name: 'bad key', method: 'POST', path: '/api/v1/scrape', body: { url: page.url }, key: 'bad' },
];

const backend = await postgresBackend();
// LOG_LEVEL stays info: the harness knows a process is up from its `listening on` line.
const env = { ...backend.env, ALLOW_PRIVATE_NETWORK: 'true', DOCUMENTS_PREWARM: 'false' };
const a = await startServer({ processMode: true, env });
let b: TestServer = await startServer({ processMode: true, env });
const startPrints = { a: footprint(a.pid), b1: footprint(b.pid) };
const { key, id: keyId } = await a.createKey({ credits: 100_000_000, rateLimitPerMinute: 1_000_000 });

const byStatus = new Map<string, number>();
const faults: string[] = [];
let toldCharged = 0;
let restarting = false;
const end = Date.now() + SECONDS * 1000;

async function one(server: TestServer, job: Job): Promise<void> {
  const raw = typeof job.body === 'string';
  const r = await server.call(job.method, job.path, { key: job.key === 'bad' ? 'cia_not_a_key' : key, body: raw ? undefined : job.body, rawBody: raw ? (job.body as string) : undefined });
  byStatus.set(`${job.name} ${r.status}`, (byStatus.get(`${job.name} ${r.status}`) ?? 0) + 1);
  toldCharged += Number(r.headers['x-credits-charged'] ?? r.json?.meta?.credits ?? 0);
  if (r.status >= 500) faults.push(`${job.name}: ${r.status} ${r.text.slice(0, 160)}`);
}

async function loop(n: number): Promise<void> {
  for (let i = n; Date.now() < end; i++) {
    const useB = i % 2 === 1;
    if (useB && restarting) continue;
    const job = MIX[i % MIX.length]!;
    try {
      await one(useB ? b : a, job);
    } catch (err) {
      // A connection cut by the restart: counted, never a money error by itself.
      byStatus.set(`${job.name} network-error`, (byStatus.get(`${job.name} network-error`) ?? 0) + 1);
    }
  }
}

const restart = (async () => {
  await new Promise((r) => setTimeout(r, (SECONDS * 1000) / 2));
  restarting = true;
  const before = footprint(b.pid);
  await b.close();
  b = await startServer({ processMode: true, env });
  restarting = false;
  return before;
})();

await Promise.all(Array.from({ length: CONNECTIONS }, (_, n) => loop(n)));
const b1End = await restart;
const endPrints = { a: footprint(a.pid), b2: footprint(b.pid) };
// B' stops first so every row it still buffers is written before anything is counted (instance A
// flushes its own before each listing).
await b.close();

/**
 * Every page of a listing of the key (usage rows or ledger entries), through the admin API: the
 * key's own `/api/v2/usage` calls would add rows while it is paged and shift the pages.
 */
async function all(kind: 'usage' | 'transactions'): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const r = await a.admin('GET', `/keys/${keyId}/${kind}?page=${page}&limit=500`);
    const items = r.json.items as any[];
    out.push(...items);
    if (items.length < 500) return out;
  }
}
const usageCredits = (await all('usage')).reduce((n, u) => n + Number(u.credits), 0);
const ledgerCharged = (await all('transactions')).filter((e) => e.kind === 'charge').reduce((n, e) => n - Number(e.amount), 0);
const balance = (await a.admin('GET', `/keys/${keyId}`)).json.credits;

console.log(`soak: ${SECONDS} s, ${CONNECTIONS} connections, two instances on PostgreSQL + Redis, the second restarted half-way`);
for (const [k, n] of [...byStatus.entries()].sort()) console.log(`  ${k.padEnd(28)} ${n}`);
console.log(`5xx answers: ${faults.length}${faults.length ? '\n  ' + [...new Set(faults)].slice(0, 10).join('\n  ') : ''}`);
console.log(`credits: told to clients ${toldCharged}, ledger charges ${ledgerCharged}, usage log ${usageCredits}, balance spent ${100_000_000 - balance}`);
console.log(`ledger = usage log: ${ledgerCharged === usageCredits ? 'yes' : 'NO'}; ledger = balance spent: ${ledgerCharged === 100_000_000 - balance ? 'yes' : 'NO'}`);
console.log(`instance A   start ${JSON.stringify(startPrints.a)}  end ${JSON.stringify(endPrints.a)}`);
console.log(`instance B   start ${JSON.stringify(startPrints.b1)}  before restart ${JSON.stringify(b1End)}`);
console.log(`instance B'  end ${JSON.stringify(endPrints.b2)}`);

await a.close();
await page.close();
await backend.dispose();
