/**
 * Server side of bench/gateway.ts, run in its own process: `engine` = the real service with a
 * trivial in-process test capability (BENCH_KEYS keys, default 1); `bare` = a plain Fastify route
 * doing the same work (parse the JSON body, answer an envelope) without auth, rate limit, ledger
 * or usage.
 */
import Fastify from 'fastify';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../server/start.js';
import { echoOnlyConfig } from '../test/fixtures/test-plugins.js';
import { createBenchKey } from './load.js';

const mode = process.argv[2] ?? 'engine';
if (mode === 'bare') {
  const app = Fastify({ logger: false });
  app.post('/api/v2/run', async (req) => {
    const body = req.body as { input: { text: string } };
    return { success: true, requestId: 'x', object: 'capability_result', data: { echo: body.input.text, by: 'bare' }, meta: {} };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address() as { port: number };
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${addr.port}`, key: 'none' }) + '\n');
} else {
  const env: Record<string, string> = { PORT: '0', DATA_DIR: await mkdtemp(join(tmpdir(), 'cia-bench-')), ADMIN_TOKEN: 'bench', LOG_LEVEL: 'error' };
  if (mode === 'postgres') {
    env.DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  }
  const s = await startService(env, { serviceConfig: echoOnlyConfig() });
  // BENCH_KEYS > 1: that many keys, so the load spreads over many ledger rows (no hot key).
  const count = Math.max(1, Number(process.env.BENCH_KEYS ?? 1));
  const keys: string[] = [];
  for (let i = 0; i < count; i += 50) keys.push(...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => createBenchKey(s.url, 'bench')))));
  process.stdout.write(JSON.stringify({ url: s.url, key: keys[0], keys }) + '\n');
}

// Exit cleanly on a signal so profilers (`--cpu-prof`) can write their output.
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => process.exit(0));
