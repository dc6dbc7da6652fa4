/**
 * bench:body-parse (issue 24): what a flood of large base64 JSON bodies costs the thread that
 * answers every request, with those bodies parsed on that thread and with them parsed in a
 * compute worker (JSON_OFF_THREAD_BYTES). The server runs in this process, so the event loop's
 * delay is measured directly; each body is built once and sent as bytes, so the client adds
 * little. Both runs happen back to back on the same machine: compare their ratio, not the
 * absolute figures (which depend on the load).
 *
 * Run: npm run bench:body-parse [-- bodies=40 images=20]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { startServer } from '../test/helpers/server.js';

const bodies = Number(process.argv[2] ?? 40);
const images = Number(process.argv[3] ?? 20);

/** One run: `bodies` requests (two at a time) of `images` 1 MB base64 files each, while /healthz is polled. */
async function run(offThreadBytes: string): Promise<string> {
  const server = await startServer({ env: { JSON_OFF_THREAD_BYTES: offThreadBytes, LOG_LEVEL: 'error' } });
  const { key } = await server.createKey({ credits: 1_000_000, rateLimitPerMinute: 1_000_000 });
  // Random bytes: valid base64 that is not a PDF, so each call decodes its files and is refused (free 400).
  const body = Buffer.from(JSON.stringify({ inputMethod: 'base64', files: Array.from({ length: images }, () => randomBytes(1_000_000).toString('base64')) }));
  const send = () => fetch(`${server.url}/api/v1/read-pdf-metadata`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body }).then(async (r) => (await r.arrayBuffer(), r.status));
  await send();
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
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const statuses = new Map<number, number>();
  let left = bodies;
  const t0 = performance.now();
  await Promise.all(
    [0, 1].map(async () => {
      while (left-- > 0) {
        const s = await send();
        statuses.set(s, (statuses.get(s) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  loop.disable();
  stop = true;
  await poll;
  await server.close();
  health.sort((a, b) => a - b);
  const pct = (p: number) => health[Math.min(health.length - 1, Math.floor((p / 100) * health.length))]!;
  return [
    `  ${bodies} bodies of ${(body.length / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s (${[...statuses].map(([s, n]) => `${n}× ${s}`).join(', ')})`,
    `  event-loop delay p50 ${(loop.percentile(50) / 1e6).toFixed(0)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms, max ${(loop.max / 1e6).toFixed(0)} ms`,
    `  /healthz p50 ${pct(50).toFixed(0)} ms, p99 ${pct(99).toFixed(0)} ms (${health.length} calls)`,
  ].join('\n');
}

console.log('bench:body-parse — large base64 bodies parsed on the serving thread:');
console.log(await run(String(1 << 30)));
console.log('…and in a compute worker (JSON_OFF_THREAD_BYTES default):');
console.log(await run('262144'));
