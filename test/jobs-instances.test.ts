/**
 * Jobs across instances (issue 25 "The engine"): two server processes on PostgreSQL + Redis; a
 * job created on A, A killed with SIGKILL mid-job (or stopped with SIGTERM), B finishes it:
 * every item once, credits exact.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, type TestServer } from './helpers/server.js';
import { postgresBackend, type Backend } from './helpers/storage.js';
import { waitJob } from './helpers/jobs.js';
import { jobsConfig } from './fixtures/job-plugins.js';

const env = (backend: Backend) => ({
  ...backend.env,
  TEST_JOB_PLUGINS: '1',
  // Short claims so a killed instance's job moves on in seconds, not half a minute.
  JOB_LEASE_SECONDS: '2',
  JOB_MAINTENANCE_SECONDS: '1',
  KEY_CACHE_TTL_MS: '0',
});

/** Exact money of one job: one charge per result, no more. */
async function assertCharged(s: TestServer, key: string, id: string, pages: number): Promise<Set<number>> {
  const job = await waitJob(s, key, id);
  assert.equal(job.status, 'completed');
  assert.equal(job.progress.done, pages);
  assert.equal(job.creditsCharged, pages * 10);
  const keys: string[] = [];
  const pids = new Set<number>();
  for (let cursor = ''; ;) {
    const r = await s.call('GET', `/api/v2/jobs/${id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key });
    keys.push(...r.json.data.results.items.map((i: any) => i.key));
    for (const i of r.json.data.results.items) pids.add(i.pid);
    if (!r.json.data.results.next) break;
    cursor = r.json.data.results.next;
  }
  assert.equal(keys.length, pages);
  assert.equal(new Set(keys).size, pages);
  const tx = await s.call('GET', '/api/v2/transactions?limit=500', { key });
  const moves = tx.json.data.items.filter((e: any) => e.kind !== 'grant');
  assert.equal(moves.reduce((sum: number, e: any) => sum + e.amount, 0), -pages * 10);
  assert.equal(moves.filter((e: any) => e.kind === 'charge').length, pages);
  return pids;
}

describe('a job outlives the instance running it (PostgreSQL + Redis, two processes)', () => {
  let backend: Backend;
  let b: TestServer;
  const spare: TestServer[] = [];
  before(async () => {
    backend = await postgresBackend();
    b = await startServer({ env: env(backend), serviceConfig: jobsConfig(), processMode: true });
  });
  after(async () => {
    await b?.close();
    for (const s of spare) await rm(s.dataDir, { recursive: true, force: true });
    await backend?.dispose();
  });

  it('A killed with SIGKILL mid-job: B finishes it, every page once, credits exact', async () => {
    const a = await startServer({ env: env(backend), serviceConfig: jobsConfig(), processMode: true });
    spare.push(a);
    const { key } = await a.createKey({ credits: 10_000 });
    const r = await a.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input: { count: 60, delayMs: 150 } } });
    assert.equal(r.status, 202, r.text);
    const id = r.json.data.id;
    await waitJob(a, key, id, (j) => j.progress.done >= 8);
    process.kill(a.pid, 'SIGKILL');
    const mid = await waitJob(b, key, id, () => true);
    assert.ok(mid.progress.done < 60, 'the job was still running when A died');
    const pids = await assertCharged(b, key, id, 60);
    assert.deepEqual([...pids].sort(), [a.pid, b.pid].sort(), 'both instances worked on the job');
  });

  it('A stopped with SIGTERM mid-job hands it back: B finishes it, credits exact', async () => {
    const a = await startServer({ env: env(backend), serviceConfig: jobsConfig(), processMode: true });
    const { key } = await a.createKey({ credits: 10_000 });
    const r = await a.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input: { count: 40, delayMs: 150 } } });
    const id = r.json.data.id;
    await waitJob(a, key, id, (j) => j.progress.done >= 8);
    await a.close();
    const pids = await assertCharged(b, key, id, 40);
    assert.ok(pids.has(b.pid) && pids.has(a.pid), 'both instances worked on the job');
  });
});
