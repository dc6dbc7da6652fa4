/**
 * A retry does not wait for the worker's poll (issue 27: the webhook worker's poll was most of an
 * idle service's CPU, so it became rare): the instance that scheduled a retry wakes its worker
 * when the retry is due at the latest. With the poll set to an hour, an event the receiver
 * refused once is still delivered again within the backoff's bound (1 s base delay: the first
 * retry comes 1 to 2 s after the refusal), on both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { jobsConfig } from './fixtures/job-plugins.js';
import { waitJob } from './helpers/jobs.js';
import { startReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const ENV = { ALLOW_PRIVATE_NETWORK: 'true', WEBHOOK_RETRY_DELAY_S: '1', WEBHOOK_RETRY_LIMIT: '3', WEBHOOK_POLL_MS: '3600000' };

for (const { name, make } of BACKENDS) {
  describe(`webhook retries without polling on ${name}`, () => {
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

    it('delivers a refused event again once its retry is due, with the poll an hour away', async () => {
      const { key } = await s.createKey({ credits: 100 });
      const sub = await s.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input: { count: 1 }, webhook: { url: `${rx.url}/flaky`, events: ['job.completed'] } } });
      assert.equal(sub.status, 202, sub.text);
      const id = sub.json.data.id as string;
      assert.equal((await waitJob(s, key, id)).status, 'completed');
      // Refused once (500), then accepted: two requests, the second within the retry's bound
      // (2 s) plus the wake's slack and a loaded machine's delay, far below the hour's poll.
      const until = Date.now() + 20_000;
      const of = () => rx.received.filter((r) => r.body.includes(id));
      while (of().length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      assert.equal(of().length, 2, 'the refused event was not sent again');
      // The record follows the second attempt's answer: read it until it is written.
      const record = async () => {
        const d = await s.call('GET', `/api/v2/jobs/${id}/deliveries`, { key });
        assert.equal(d.status, 200, d.text);
        return (d.json.data.items as { status: string; attempts: { status: number }[] }[])[0]!;
      };
      let event = await record();
      for (let i = 0; i < 50 && event.status !== 'delivered'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        event = await record();
      }
      assert.equal(event.status, 'delivered');
      assert.deepEqual(event.attempts.map((a) => a.status), [500, 200]);
    });
  });
}
