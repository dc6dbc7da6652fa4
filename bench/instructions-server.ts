/**
 * Server side of bench/call-instructions.ts: the gateway bench's engine (the real service with a
 * trivial in-process capability and one key) of the checkout named by argv[2], which may be
 * another `git worktree` (its modules are loaded from there), on the store BENCH_DATABASE_URL /
 * BENCH_REDIS_URL name (embedded when unset). The pollers that wake on their own are slowed (one
 * job worker, hourly pg-boss maintenance and monitor looks) so that little of what is counted
 * depends on how long the run took; the count of the idle server still shows what is left.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tree = process.argv[2] ?? join(import.meta.dirname, '..');
const { startService } = (await import(join(tree, 'server/start.ts'))) as typeof import('../server/start.js');
const { echoOnlyConfig } = (await import(join(tree, 'test/fixtures/test-plugins.ts'))) as typeof import('../test/fixtures/test-plugins.js');
const { createBenchKey } = (await import(join(tree, 'bench/load.ts'))) as typeof import('./load.js');
const env: Record<string, string | undefined> = {
  PORT: '0',
  // call-instructions.ts passes a folder it removes afterwards.
  DATA_DIR: process.env.BENCH_DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'cia-instructions-data-'))),
  ADMIN_TOKEN: 'bench',
  LOG_LEVEL: 'error',
  DATABASE_URL: process.env.BENCH_DATABASE_URL,
  REDIS_URL: process.env.BENCH_REDIS_URL,
  JOB_WORKERS: '1',
  JOB_MAINTENANCE_SECONDS: '3600',
  MONITOR_POLL_MS: '3600000',
};
const s = await startService(env, { serviceConfig: echoOnlyConfig() });
process.stdout.write(JSON.stringify({ url: s.url, key: await createBenchKey(s.url, 'bench') }) + '\n');

// Exit on a signal so valgrind writes its last count.
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => process.exit(0));
