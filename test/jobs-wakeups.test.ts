/**
 * Job turns start on this instance's own wake-ups, not on pg-boss's polling (issue 27: idle CPU;
 * core/jobs/wakeups.ts). The workers here poll once an hour, so every job below that ends started
 * because the instance woke a worker itself: a job queued behind its key's running limit once a
 * slot frees (a delayed turn), a new job queued behind turns of ended jobs (a worker that ran a
 * turn looks again at once), and jobs one after another on one worker.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { jobsConfig } from './fixtures/job-plugins.js';
import { waitJob } from './helpers/jobs.js';

for (const { name, make } of BACKENDS) {
  describe(`job wake-ups on ${name}, with polling all but off`, () => {
    let backend: Backend;
    let s: TestServer;
    before(async () => {
      backend = await make();
      s = await startServer({ env: { ...backend.env, JOB_POLL_SECONDS: '3600', JOB_WORKERS: '1', JOB_MAX_RUNNING_PER_KEY: '1', JOB_ITEM_CONCURRENCY: '2' }, serviceConfig: jobsConfig() });
    });
    after(async () => {
      await s?.close();
      await backend?.dispose();
    });

    const submit = (key: string, body: unknown) => s.call('POST', '/api/v2/jobs', { key, body });

    it('a job behind its key\'s running limit starts once the running one ends, and completes', async () => {
      const { key } = await s.createKey({ credits: 100_000 });
      const first = await submit(key, { type: 'capability', id: 'test_pages', input: { count: 2000, delayMs: 50 } });
      const second = await submit(key, { type: 'capability', id: 'test_pages', input: { count: 3 } });
      assert.equal(first.status, 202);
      assert.equal(second.status, 202);
      await waitJob(s, key, first.json.data.id, (j) => j.progress.done >= 4);
      assert.equal((await waitJob(s, key, second.json.data.id, () => true)).status, 'queued');
      await s.call('DELETE', `/api/v2/jobs/${first.json.data.id}`, { key });
      const done = await waitJob(s, key, second.json.data.id);
      assert.equal(done.status, 'completed');
      assert.equal(done.progress.done, 3);
    });

    it('a new job is not left behind the turns of jobs that already ended', async () => {
      const { key } = await s.createKey({ credits: 100_000 });
      // Each of these leaves turns in the queue that find their job ended (cancelled at once).
      for (let i = 0; i < 3; i++) {
        const r = await submit(key, { type: 'capability', id: 'test_pages', input: { count: 50, delayMs: 20 } });
        await s.call('DELETE', `/api/v2/jobs/${r.json.data.id}`, { key });
      }
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await submit(key, { type: 'capability', id: 'test_echo', input: { text: `n${i}` } })).json.data.id);
      for (const id of ids) assert.equal((await waitJob(s, key, id)).status, 'completed');
    });
  });
}
