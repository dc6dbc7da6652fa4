/**
 * Jobs through the real server on both stores (issue 25): a single-result job, stepwise jobs
 * (batch and frontier) with progress, paging and exact charges, cancel mid-run, a key running out
 * of credits mid-job, another key's job, and bad input refused before any 202.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { jobsConfig } from './fixtures/job-plugins.js';
import { waitJob } from './helpers/jobs.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every result of a job, paged `limit` at a time. */
async function allResults(s: TestServer, key: string, id: string, limit: number): Promise<any[]> {
  const out: any[] = [];
  let cursor = '';
  for (;;) {
    const r = await s.call('GET', `/api/v2/jobs/${id}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { key });
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.data.results.items.length <= limit);
    out.push(...r.json.data.results.items);
    if (!r.json.data.results.next) return out;
    cursor = r.json.data.results.next;
  }
}

const balance = async (s: TestServer, key: string) => (await s.call('GET', '/api/v2/balance', { key })).json.data;

for (const { name, make } of BACKENDS) {
  describe(`jobs on ${name}`, () => {
    let backend: Backend;
    let s: TestServer;
    before(async () => {
      backend = await make();
      // One worker: the strictest case for fairness between keys.
      s = await startServer({ env: { ...backend.env, JOB_ITEM_CONCURRENCY: '4', JOB_MAX_RUNNING_PER_KEY: '1', JOB_WORKERS: '1' }, serviceConfig: jobsConfig() });
    });
    after(async () => {
      await s?.close();
      await backend?.dispose();
    });

    const submit = (key: string, body: unknown) => s.call('POST', '/api/v2/jobs', { key, body });

    it('runs a single-result job as one call, charged as run charges it', async () => {
      const { key } = await s.createKey({ credits: 100 });
      const r = await submit(key, { type: 'capability', id: 'test_echo', input: { text: 'hello' } });
      assert.equal(r.status, 202, r.text);
      assert.equal(r.json.object, 'job');
      assert.match(r.json.data.id, /^job_/);
      assert.equal(r.json.data.status, 'queued');
      assert.equal(r.json.data.statusUrl, `/api/v2/jobs/${r.json.data.id}`);
      await waitJob(s, key, r.json.data.id);
      const got = await s.call('GET', `/api/v2/jobs/${r.json.data.id}`, { key });
      assert.equal(got.json.data.status, 'completed');
      assert.deepEqual(got.json.data.data, { echo: 'hello', by: 'test_echo' });
      assert.equal(got.json.data.creditsCharged, 10);
      assert.deepEqual(got.json.data.progress, { done: 1, failed: 0, total: 1 });
      assert.equal((await balance(s, key)).credits, 90);
    });

    it('refuses bad input with a 400 before any job exists, and an unknown target with a 404', async () => {
      const { key } = await s.createKey({ credits: 100 });
      const bad = await submit(key, { type: 'capability', id: 'test_echo', input: {} });
      assert.equal(bad.status, 400);
      assert.equal(bad.json.code, 'INVALID_INPUT');
      const tooMany = await submit(key, { type: 'capability', id: 'test_pages', input: { count: 5001 } });
      assert.equal(tooMany.status, 400);
      assert.equal((await submit(key, { type: 'capability', id: 'nope', input: {} })).status, 404);
      assert.equal((await submit(key, { type: 'job', id: 'test_echo', input: {} })).status, 400);
      const hook = await submit(key, { type: 'capability', id: 'test_echo', input: { text: 'x' }, webhook: { url: 'ftp://x' } });
      assert.equal(hook.status, 400);
      const list = await s.call('GET', '/api/v2/jobs', { key });
      assert.equal(list.status, 200);
      assert.deepEqual(list.json.data.items, []);
      assert.equal((await balance(s, key)).credits, 100);
    });

    it('runs a stepwise batch item by item: progress, paged results, failures free, done items charged', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      const r = await submit(key, { type: 'capability', id: 'test_pages', input: { count: 12, fail: ['p3'] } });
      assert.equal(r.status, 202, r.text);
      const job = await waitJob(s, key, r.json.data.id);
      assert.equal(job.status, 'completed');
      assert.equal(job.provider, 'test_pager');
      assert.deepEqual(job.progress, { done: 11, failed: 1, total: 12 });
      assert.equal(job.creditsCharged, 110);
      assert.equal(job.results, undefined);
      const items = await allResults(s, key, r.json.data.id, 5);
      assert.equal(items.length, 12);
      assert.deepEqual(new Set(items.map((i) => i.key)), new Set(Array.from({ length: 12 }, (_, n) => `p${n}`)));
      assert.equal(items.find((i) => i.key === 'p3').error.code, 'UPSTREAM_ERROR');
      const b = await balance(s, key);
      assert.equal(b.credits, 890);
      assert.equal(b.reserved, 0);
    });

    it('runs a frontier job to exactly its limit, each item once', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      const r = await submit(key, { type: 'capability', id: 'test_pages', input: { count: 20, frontier: true } });
      const job = await waitJob(s, key, r.json.data.id);
      assert.equal(job.status, 'completed');
      assert.equal(job.progress.done, 20);
      const items = await allResults(s, key, r.json.data.id, 100);
      assert.equal(items.length, 20);
      assert.equal(new Set(items.map((i) => i.key)).size, 20);
      assert.equal(job.creditsCharged, 200);
      assert.equal((await balance(s, key)).credits, 800);
    });

    it('cancel stops the work: pages done stay charged, nothing else', async () => {
      const { key } = await s.createKey({ credits: 10_000 });
      const r = await submit(key, { type: 'capability', id: 'test_pages', input: { count: 400, delayMs: 100 } });
      await waitJob(s, key, r.json.data.id, (j) => j.progress.done >= 4);
      const del = await s.call('DELETE', `/api/v2/jobs/${r.json.data.id}`, { key });
      assert.equal(del.status, 200);
      assert.equal(del.json.data.status, 'cancelled');
      await sleep(400);
      const job = await waitJob(s, key, r.json.data.id);
      assert.equal(job.status, 'cancelled');
      assert.ok(job.progress.done < 400);
      const items = await allResults(s, key, r.json.data.id, 100);
      assert.equal(items.length, job.progress.done);
      assert.equal(job.creditsCharged, job.progress.done * 10);
      const b = await balance(s, key);
      assert.equal(b.credits, 10_000 - job.progress.done * 10);
      assert.equal(b.reserved, 0);
      await sleep(300);
      assert.equal((await waitJob(s, key, r.json.data.id)).progress.done, job.progress.done);
    });

    it('a key out of credits mid-job: failed INSUFFICIENT_CREDITS, what it did kept and charged', async () => {
      const { key } = await s.createKey({ credits: 55 });
      const r = await submit(key, { type: 'capability', id: 'test_pages', input: { count: 20 } });
      const job = await waitJob(s, key, r.json.data.id);
      assert.equal(job.status, 'failed');
      assert.equal(job.error.code, 'INSUFFICIENT_CREDITS');
      assert.equal(job.progress.done, 5);
      assert.equal(job.creditsCharged, 50);
      assert.equal((await allResults(s, key, r.json.data.id, 100)).length, 5);
      const b = await balance(s, key);
      assert.equal(b.credits, 5);
      assert.equal(b.reserved, 0);
    });

    it('one key\'s big job does not hold back another key\'s small one', async () => {
      const big = await s.createKey({ credits: 100_000 });
      const small = await s.createKey({ credits: 100 });
      const r = await submit(big.key, { type: 'capability', id: 'test_pages', input: { count: 2000, delayMs: 50 } });
      await waitJob(s, big.key, r.json.data.id, (j) => j.progress.done >= 8);
      const q = await submit(small.key, { type: 'capability', id: 'test_pages', input: { count: 2 } });
      const done = await waitJob(s, small.key, q.json.data.id);
      assert.equal(done.status, 'completed');
      const bigNow = await waitJob(s, big.key, r.json.data.id, () => true);
      assert.equal(bigNow.status, 'running');
      assert.ok(bigNow.progress.done < 2000);
      await s.call('DELETE', `/api/v2/jobs/${r.json.data.id}`, { key: big.key });
    });

    it('a key runs JOB_MAX_RUNNING_PER_KEY jobs at once; the next waits queued', async () => {
      const { key } = await s.createKey({ credits: 100_000 });
      const first = await submit(key, { type: 'capability', id: 'test_pages', input: { count: 2000, delayMs: 50 } });
      const second = await submit(key, { type: 'capability', id: 'test_pages', input: { count: 2000, delayMs: 50 } });
      await waitJob(s, key, first.json.data.id, (j) => j.progress.done >= 12);
      assert.equal((await waitJob(s, key, second.json.data.id, () => true)).status, 'queued');
      await s.call('DELETE', `/api/v2/jobs/${first.json.data.id}`, { key });
      await waitJob(s, key, second.json.data.id, (j) => j.progress.done >= 1);
      await s.call('DELETE', `/api/v2/jobs/${second.json.data.id}`, { key });
      // The items in flight at the cancel stop and give their holds back (a bounded wait).
      let b = await balance(s, key);
      for (let i = 0; i < 100 && b.reserved !== 0; i++) {
        await sleep(100);
        b = await balance(s, key);
      }
      assert.equal(b.reserved, 0);
    });

    it('another key\'s job, or an unknown one, is a 404', async () => {
      const a = await s.createKey({ credits: 100 });
      const b = await s.createKey({ credits: 100 });
      const r = await submit(a.key, { type: 'capability', id: 'test_echo', input: { text: 'mine' } });
      for (const path of [`/api/v2/jobs/${r.json.data.id}`, '/api/v2/jobs/job_unknown']) {
        const got = await s.call('GET', path, { key: b.key });
        assert.equal(got.status, 404);
        assert.equal(got.json.code, 'NOT_FOUND');
        assert.equal((await s.call('DELETE', path, { key: b.key })).status, 404);
      }
      assert.deepEqual((await s.call('GET', '/api/v2/jobs', { key: b.key })).json.data.items, []);
      await waitJob(s, a.key, r.json.data.id);
      const mine = await s.call('GET', '/api/v2/jobs?status=completed', { key: a.key });
      assert.deepEqual(mine.json.data.items.map((j: any) => j.id), [r.json.data.id]);
      assert.equal((await s.call('GET', '/api/v2/jobs?status=bogus', { key: a.key })).status, 400);
    });
  });
}
