/**
 * A job's webhook end to end through the real server on both stores (issue 25 "Webhooks"): a
 * stepwise job submitted with a webhook sends job.started, one job.page per item and
 * job.completed, each signed with the key's secret (checked by the standardwebhooks package),
 * metadata echoed, the `events` filter applied; a receiver that answers 500 gets the same event
 * again and the deliveries list shows both attempts; a cancelled job sends job.cancelled.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { jobsConfig } from './fixtures/job-plugins.js';
import { waitJob } from './helpers/jobs.js';
import { startReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const ENV = { ALLOW_PRIVATE_NETWORK: 'true', WEBHOOK_RETRY_DELAY_S: '1', WEBHOOK_RETRY_LIMIT: '3', WEBHOOK_POLL_MS: '500' };

for (const { name, make } of BACKENDS) {
  describe(`job webhooks on ${name}`, () => {
    let backend: Backend;
    let s: TestServer;
    let rx: WebhookReceiver;
    before(async () => {
      backend = await make();
      rx = await startReceiver();
      s = await startServer({ env: { ...backend.env, ...ENV }, serviceConfig: jobsConfig() });
    });
    after(async () => {
      rx?.release();
      await s?.close();
      await rx?.close();
      await backend?.dispose();
    });

    const bodiesOf = (jobId: string) => rx.received.filter((r) => r.body.includes(jobId));

    it('signs every event of a stepwise job, echoes metadata and retries an event the receiver refused', async () => {
      const { key } = await s.createKey({ credits: 100 });
      const sub = await s.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input: { count: 3 }, webhook: { url: `${rx.url}/flaky`, metadata: { order: 7 } } } });
      assert.equal(sub.status, 202, sub.text);
      const id = sub.json.data.id as string;
      const job = await waitJob(s, key, id);
      assert.equal(job.status, 'completed');
      // Every event is refused once (500), then accepted: 5 events, 10 requests.
      const until = Date.now() + 60_000;
      while (bodiesOf(id).length < 10 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      const got = bodiesOf(id);
      assert.equal(got.length, 10);
      const secret = (await s.call('GET', '/api/v2/webhook-secret', { key })).json.data.secret as string;
      const events = got.map((r) => new Webhook(secret).verify(r.body, r.headers) as any);
      const types = [...new Set(got.map((r) => r.headers['webhook-id']))].map((wid) => events[got.findIndex((r) => r.headers['webhook-id'] === wid)].type);
      // Attempts run concurrently, so arrival order is not the events' order; the record is.
      assert.deepEqual([...types].sort(), ['job.completed', 'job.page', 'job.page', 'job.page', 'job.started']);
      for (const e of events) {
        assert.equal(e.jobId, id);
        assert.deepEqual(e.metadata, { order: 7 });
      }
      const deliveries = await s.call('GET', `/api/v2/jobs/${id}/deliveries`, { key });
      assert.equal(deliveries.status, 200, deliveries.text);
      const items = deliveries.json.data.items as any[];
      assert.deepEqual(items.map((d) => d.type), ['job.started', 'job.page', 'job.page', 'job.page', 'job.completed']);
      for (const d of items) {
        assert.equal(d.status, 'delivered');
        assert.deepEqual(d.attempts.map((a: any) => a.status), [500, 200]);
      }
      // Another key sees neither the job nor its deliveries.
      const other = await s.createKey({ credits: 10 });
      assert.equal((await s.call('GET', `/api/v2/jobs/${id}/deliveries`, { key: other.key })).status, 404);
    });

    it('sends only the events asked for, and job.cancelled for a cancelled job', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      const sub = await s.call('POST', '/api/v2/jobs', {
        key,
        body: { type: 'capability', id: 'test_pages', input: { count: 50, delayMs: 200 }, webhook: { url: `${rx.url}/ok`, events: ['job.cancelled'] } },
      });
      assert.equal(sub.status, 202, sub.text);
      const id = sub.json.data.id as string;
      await waitJob(s, key, id, (j) => j.progress.done >= 2);
      assert.equal((await s.call('DELETE', `/api/v2/jobs/${id}`, { key })).status, 200);
      const done = await waitJob(s, key, id);
      assert.equal(done.status, 'cancelled');
      const until = Date.now() + 30_000;
      while (bodiesOf(id).length < 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      await new Promise((r) => setTimeout(r, 1000));
      const got = bodiesOf(id).map((r) => JSON.parse(r.body).type);
      assert.deepEqual(got, ['job.cancelled']);
    });
  });
}
