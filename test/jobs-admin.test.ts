/**
 * Jobs for the operator (issue 25 "Progress everywhere"): the admin API lists every key's jobs
 * with filters, shows one and cancels it; the admin CLI lists, watches (lines when not on a
 * terminal) and cancels through the server holding the embedded store, or on the store itself
 * when no server runs (its job.cancelled event then waits for the next server); /metrics counts
 * jobs by state and shows the queue's age.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, type TestServer } from './helpers/server.js';
import { startReceiver } from './helpers/webhook-receiver.js';
import { jobsConfig } from './fixtures/job-plugins.js';
import { waitJob } from './helpers/jobs.js';
import { cliInProcess } from './helpers/admin-cli.js';

describe('jobs in the admin API, CLI and metrics', () => {
  let s: TestServer;
  // The server in a process of its own, as a deployed one: the CLI finds it holding the embedded
  // store and sends its commands to the URL it advertises. The commands run in this process
  // (the same runCli as cli.ts; a CLI process per command cost seconds of CPU each, and what only
  // a process shows, argv and exit codes, is admin-cli.test.ts's).
  before(async () => {
    s = await startServer({ serviceConfig: jobsConfig(), processMode: true, env: { TEST_JOB_PLUGINS: '1' } });
  });
  after(() => s?.close());

  const cli = (...args: string[]) => cliInProcess({ DATA_DIR: s.dataDir, ADMIN_TOKEN: s.adminToken }, ...args);

  it('lists, shows and cancels any key\'s job; the CLI watches and cancels', async () => {
    const a = await s.createKey({ credits: 10_000 });
    const b = await s.createKey({ credits: 10_000 });
    const quick = await s.call('POST', '/api/v2/jobs', { key: a.key, body: { type: 'capability', id: 'test_pages', input: { count: 3 } } });
    const slow = await s.call('POST', '/api/v2/jobs', { key: b.key, body: { type: 'capability', id: 'test_pages', input: { count: 2000, delayMs: 200 } } });
    await waitJob(s, a.key, quick.json.data.id);

    const all = await s.admin('GET', '/jobs');
    assert.equal(all.status, 200);
    assert.deepEqual(new Set(all.json.items.map((j: any) => j.id)), new Set([quick.json.data.id, slow.json.data.id]));
    const ofB = await s.admin('GET', `/jobs?keyId=${b.id}`);
    assert.deepEqual(ofB.json.items.map((j: any) => j.id), [slow.json.data.id]);
    const done = await s.admin('GET', '/jobs?status=completed');
    assert.deepEqual(done.json.items.map((j: any) => j.id), [quick.json.data.id]);
    const one = await s.admin('GET', `/jobs/${quick.json.data.id}`);
    assert.equal(one.json.keyId, a.id);
    assert.equal(one.json.results.items.length, 3);
    assert.equal((await s.admin('GET', '/jobs/job_nope')).status, 404);

    const listed = JSON.parse((await cli('jobs', 'list', '--status', 'completed')).stdout);
    assert.deepEqual(listed.map((j: any) => j.id), [quick.json.data.id]);
    const watched = await cli('jobs', 'watch', quick.json.data.id);
    assert.equal(JSON.parse(watched.stdout).status, 'completed');
    assert.match(watched.stderr, /^completed 3\/3 \(0 failed\) 30 credits$/m);

    const metrics = await s.call('GET', '/metrics', { key: s.adminToken });
    assert.match(metrics.text, /^cia_jobs\{state="completed"\} 1$/m);
    assert.match(metrics.text, /^cia_jobs\{state="running"\} 1$/m);
    assert.match(metrics.text, /^cia_jobs_queue_age_seconds 0$/m);

    const cancelled = JSON.parse((await cli('jobs', 'cancel', slow.json.data.id)).stdout);
    assert.equal(cancelled.status, 'cancelled');
    const again = await s.admin('POST', `/jobs/${slow.json.data.id}/cancel`);
    assert.equal(again.json.status, 'cancelled');
    const end = await waitJob(s, b.key, slow.json.data.id);
    assert.equal(end.creditsCharged, end.progress.done * 10);
  });
});

describe('the CLI cancel with no server running', () => {
  it('cancels on the store and queues job.cancelled, which the next server delivers', async () => {
    const rx = await startReceiver();
    const env = { ALLOW_PRIVATE_NETWORK: 'true', WEBHOOK_POLL_MS: '500' };
    const first = await startServer({ serviceConfig: jobsConfig(), env });
    const dataDir = first.dataDir;
    let second: TestServer | undefined;
    try {
      const { key } = await first.createKey({ credits: 10_000 });
      const sub = await first.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input: { count: 500, delayMs: 200 }, webhook: { url: `${rx.url}/ok`, events: ['job.cancelled'] } } });
      assert.equal(sub.status, 202, sub.text);
      const id = sub.json.data.id as string;
      await waitJob(first, key, id, (j) => j.progress.done >= 1);
      await first.close({ keepData: true });
      // The command in this process, as above: with no server holding the store, it runs on it.
      const out = await cliInProcess({ DATA_DIR: dataDir, ADMIN_TOKEN: first.adminToken }, 'jobs', 'cancel', id);
      assert.equal(JSON.parse(out.stdout).status, 'cancelled');
      assert.equal(rx.received.length, 0, 'nothing is delivered while no server runs');
      second = await startServer({ serviceConfig: jobsConfig(), env, dataDir });
      const [got] = await rx.waitFor('/ok', 1, 30_000);
      const body = JSON.parse(got!.body);
      assert.deepEqual([body.type, body.jobId, body.data.status], ['job.cancelled', id, 'cancelled']);
      const job = (await second.call('GET', `/api/v2/jobs/${id}?skipData=true`, { key })).json.data;
      assert.equal(job.status, 'cancelled');
      assert.equal(job.creditsCharged, job.progress.done * 10);
    } finally {
      await second?.close();
      await rx.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

// Large job inputs kept in the file store: jobs-input-files.test.ts, on both stores.

describe('job retention', () => {
  it('purges a job and the files it produced JOB_RETENTION_MS after it ended', async () => {
    const s = await startServer({ serviceConfig: jobsConfig(), env: { JOB_RETENTION_MS: '1000' } });
    try {
      const { key } = await s.createKey({ credits: 100 });
      const r = await s.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input: { count: 2, file: true } } });
      assert.equal((await waitJob(s, key, r.json.data.id)).status, 'completed');
      const links: string[] = (await s.call('GET', `/api/v2/jobs/${r.json.data.id}`, { key })).json.data.results.items.map((i: any) => i.url);
      assert.equal(links.length, 2);
      for (const link of links) assert.equal((await fetch(link)).status, 200);
      let status = 200;
      for (let i = 0; i < 200 && status === 200; i++) {
        await new Promise((res) => setTimeout(res, 100));
        status = (await s.call('GET', `/api/v2/jobs/${r.json.data.id}`, { key })).status;
      }
      assert.equal(status, 404);
      for (const link of links) assert.equal((await fetch(link)).status, 404, 'its files went with it');
      assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 80);
    } finally {
      await s.close();
    }
  });
});
