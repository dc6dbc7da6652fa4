/**
 * Jobs across instances (issue 25 "The engine"): two server processes on PostgreSQL + Redis; a
 * job created on A, A killed with SIGKILL mid-job (or stopped with SIGTERM), B finishes it:
 * every item once, credits exact.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, startServers, type TestServer } from './helpers/server.js';
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

/** The instance that ran the job's latest result: the one working on it now. */
async function runnerOf(s: TestServer, key: string, id: string, servers: TestServer[]): Promise<TestServer> {
  const seen: any[] = [];
  for (let cursor = ''; ;) {
    const r = await s.call('GET', `/api/v2/jobs/${id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key });
    seen.push(...r.json.data.results.items);
    if (!r.json.data.results.next) break;
    cursor = r.json.data.results.next;
  }
  return servers.find((x) => x.pid === seen[seen.length - 1].pid)!;
}

describe('a job outlives the instance running it (PostgreSQL + Redis, two processes)', () => {
  let backend: Backend;
  const alive: TestServer[] = [];
  const killed: TestServer[] = [];
  before(async () => {
    backend = await postgresBackend();
    // Started together, as a deployment's instances are.
    alive.push(...(await startServers([0, 1].map(() => ({ env: env(backend), serviceConfig: jobsConfig(), processMode: true })))));
  });
  after(async () => {
    for (const s of alive) await s.close();
    for (const s of killed) await rm(s.dataDir, { recursive: true, force: true });
    await backend?.dispose();
  });

  it('the instance running a job is killed with SIGKILL: the other finishes it, every page once, credits exact', async () => {
    const [a] = alive;
    const { key } = await a!.createKey({ credits: 10_000 });
    const r = await a!.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input: { count: 60, delayMs: 150 } } });
    assert.equal(r.status, 202, r.text);
    const id = r.json.data.id;
    await waitJob(a!, key, id, (j) => j.progress.done >= 8);
    // Any instance may have taken the job: kill the one working on it.
    const victim = await runnerOf(a!, key, id, alive);
    process.kill(victim.pid, 'SIGKILL');
    alive.splice(alive.indexOf(victim), 1);
    killed.push(victim);
    const survivor = alive[0]!;
    const mid = await waitJob(survivor, key, id, () => true);
    assert.ok(mid.progress.done < 60, 'the job was still running when its instance died');
    const pids = await assertCharged(survivor, key, id, 60);
    assert.deepEqual([...pids].sort(), [victim.pid, survivor.pid].sort(), 'both instances worked on the job');
  });

  it('the instance running a job is stopped with SIGTERM: it hands the job back, the other finishes it, credits exact', async () => {
    alive.push(await startServer({ env: env(backend), serviceConfig: jobsConfig(), processMode: true }));
    const { key } = await alive[0]!.createKey({ credits: 10_000 });
    const r = await alive[0]!.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input: { count: 40, delayMs: 150 } } });
    const id = r.json.data.id;
    await waitJob(alive[0]!, key, id, (j) => j.progress.done >= 8);
    const stopping = await runnerOf(alive[0]!, key, id, alive);
    alive.splice(alive.indexOf(stopping), 1);
    await stopping.close();
    const pids = await assertCharged(alive[0]!, key, id, 40);
    assert.ok(pids.has(stopping.pid) && pids.has(alive[0]!.pid), 'both instances worked on the job');
  });
});
