/**
 * Webhook delivery (issue 25), driven through the dispatcher's `deliver` as the job engine calls
 * it, on PostgreSQL (deliveries read through the real server's route) and on the embedded store:
 * signatures checked by an independent implementation (`standardwebhooks`), a retry after a 500,
 * every attempt listed, the `events` filter, metadata echoed, rotation, the SSRF guard, and a
 * receiver that hangs never holding up `deliver`.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { startReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';
import { embeddedWorld, postgresWorld, type WebhookWorld } from './helpers/webhook-world.js';
import type { JobEventDelivery } from '../core/webhooks/types.js';

const WORLDS = [
  { name: 'postgres', make: postgresWorld },
  { name: 'embedded', make: embeddedWorld },
];

for (const world of WORLDS) {
  describe(`webhook delivery (${world.name})`, () => {
    let w: WebhookWorld;
    let rx: WebhookReceiver;

    before(async () => {
      rx = await startReceiver();
      w = await world.make();
    });
    after(async () => {
      rx?.release();
      await w?.close();
      await rx?.close();
    });

    /** An event of `jobId` for the receiver's `path`; `extra.webhook` adds events and metadata. */
    const event = (jobId: string, path: string, extra: Partial<JobEventDelivery> = {}): JobEventDelivery => {
      void w.ensureJob(jobId, w.keyId);
      return {
      keyId: w.keyId,
      jobId,
      type: 'job.completed',
      data: { id: jobId, status: 'completed' },
      ...extra,
      webhook: { ...extra.webhook, url: rx.url + path },
      };
    };

    /** Reads the job's deliveries until `done` holds for them (a bounded wait, not a timing check). */
    const settle = async (jobId: string, done: (items: any[]) => boolean) => {
      const until = Date.now() + 30_000;
      for (;;) {
        const r = await w.deliveries(jobId);
        if (r.status === 200 && done(r.items)) return r.items;
        if (Date.now() > until) throw new Error(`deliveries of ${jobId} did not settle: ${JSON.stringify(r)}`);
        await new Promise((res) => setTimeout(res, 200));
      }
    };

    it('signs each event so the reference verifier accepts it, echoing metadata', async () => {
      await w.dispatcher.deliver(event('job_sig', '/ok', { webhook: { url: '', metadata: { order: 42, tags: ['a'] } } }));
      const [got] = await rx.waitFor('/ok', 1);
      const payload = new Webhook(await w.secret()).verify(got!.body, got!.headers) as any;
      assert.equal(payload.type, 'job.completed');
      assert.equal(payload.jobId, 'job_sig');
      assert.deepEqual(payload.data, { id: 'job_sig', status: 'completed' });
      assert.deepEqual(payload.metadata, { order: 42, tags: ['a'] });
      assert.match(got!.headers['webhook-id']!, /^msg_/);
      assert.equal(got!.headers['content-type'], 'application/json');
      const items = await settle('job_sig', (i) => i[0]?.status === 'delivered');
      assert.equal(items.length, 1);
      assert.equal(items[0].id, got!.headers['webhook-id']);
      assert.deepEqual(items[0].attempts.map((a: any) => [a.attempt, a.status, a.error]), [[1, 200, null]]);
    });

    it('retries after a 500 with the same webhook-id, and lists both attempts', async () => {
      await w.dispatcher.deliver(event('job_retry', '/flaky'));
      const got = await rx.waitFor('/flaky', 2);
      assert.equal(got[0]!.headers['webhook-id'], got[1]!.headers['webhook-id']);
      const secret = await w.secret();
      for (const r of got) new Webhook(secret).verify(r.body, r.headers);
      const items = await settle('job_retry', (i) => i[0]?.status === 'delivered');
      assert.deepEqual(items[0].attempts.map((a: any) => a.status), [500, 200]);
      for (const a of items[0].attempts) assert.ok(Number.isInteger(a.durationMs) && a.durationMs >= 0 && !Number.isNaN(Date.parse(a.attemptedAt)));
    });

    it('gives up after the retry limit on a receiver that keeps failing', async () => {
      await w.dispatcher.deliver(event('job_down', '/down'));
      const items = await settle('job_down', (i) => i[0]?.status === 'failed');
      // The first attempt and TEST_WEBHOOK_SETTINGS.retryLimit (2) retries.
      assert.deepEqual(items[0].attempts.map((a: any) => a.status), [503, 503, 503]);
    });

    it('sends only the events the webhook asks for', async () => {
      const webhook = { url: '', events: ['job.completed'] };
      await w.dispatcher.deliver(event('job_filter', '/ok', { type: 'job.started', webhook }));
      await w.dispatcher.deliver(event('job_filter', '/ok', { type: 'job.page', webhook, data: { url: 'x' } }));
      await w.dispatcher.deliver(event('job_filter', '/ok', { type: 'job.completed', webhook }));
      const items = await settle('job_filter', (i) => i.every((e) => e.status === 'delivered'));
      assert.deepEqual(items.map((e: any) => e.type), ['job.completed']);
      const bodies = rx.received.filter((r) => r.body.includes('"job_filter"')).map((r) => JSON.parse(r.body).type);
      assert.deepEqual(bodies, ['job.completed']);
    });

    it('signs with the new secret only once it is rotated', async () => {
      const old = await w.secret();
      const fresh = await w.rotate();
      assert.notEqual(fresh, old);
      await w.dispatcher.deliver(event('job_rotate', '/ok'));
      await settle('job_rotate', (i) => i[0]?.status === 'delivered');
      const got = rx.received.find((r) => r.body.includes('"job_rotate"'))!;
      assert.equal((new Webhook(fresh).verify(got.body, got.headers) as any).jobId, 'job_rotate');
      assert.throws(() => new Webhook(old).verify(got.body, got.headers));
    });

    it('records a URL the SSRF guard refuses as a failed attempt, without retrying it', async () => {
      // Only the literal 127.0.0.1 is allowed; `localhost` resolves to a loopback address and is refused.
      const url = rx.url.replace('127.0.0.1', 'localhost') + '/ok';
      const before = rx.received.length;
      await w.ensureJob('job_ssrf', w.keyId);
      await w.dispatcher.deliver({ keyId: w.keyId, jobId: 'job_ssrf', webhook: { url }, type: 'job.failed', data: {} });
      const items = await settle('job_ssrf', (i) => i[0]?.status === 'failed');
      assert.equal(items[0].attempts.length, 1);
      assert.equal(items[0].attempts[0].status, null);
      assert.match(items[0].attempts[0].error, /not allowed/);
      assert.equal(rx.received.length, before);
    });

    it('returns from deliver while an earlier receiver still hangs', async () => {
      await w.dispatcher.deliver(event('job_hold', '/hold'));
      await rx.waitFor('/hold', 1);
      // If deliver waited for a receiver, this would never resolve: the held request is still open.
      await w.dispatcher.deliver(event('job_after_hold', '/ok'));
      await settle('job_after_hold', (i) => i[0]?.status === 'delivered');
      // The hanging receiver's attempt ends at the timeout, recorded as such, and is retried.
      const held = await settle('job_hold', (i) => i[0]?.attempts.length >= 1);
      assert.equal(held[0].attempts[0].status, null);
      assert.match(held[0].attempts[0].error, /no response within 1 s/);
      rx.release();
    });

    it('pages a job\'s events oldest first, and removes them with the job', async () => {
      for (const type of ['job.started', 'job.page', 'job.page', 'job.completed'] as const) await w.dispatcher.deliver(event('job_pages', '/ok', { type }));
      await settle('job_pages', (i) => i.length === 4 && i.every((e) => e.status === 'delivered'));
      const first = await w.deliveries('job_pages', false, { page: 1, limit: 3 });
      const second = await w.deliveries('job_pages', false, { page: 2, limit: 3 });
      assert.deepEqual([...first.items, ...second.items].map((e) => e.type), ['job.started', 'job.page', 'job.page', 'job.completed']);
      assert.equal(second.items[0].attempts.length, 1);
      await w.store.removeForJob(w.keyId, 'job_pages');
      // Its events are gone (the job itself answers an empty list where the engine still has it).
      const gone = await w.deliveries('job_pages');
      assert.ok(gone.status === 404 || (gone.status === 200 && gone.items.length === 0), JSON.stringify(gone));
    });

    it("takes keys in turn: one key's backlog does not hold back another key's event", async () => {
      // With the worker stopped, ten events of one key are queued before one of another key.
      await w.dispatcher.stop();
      const from = rx.received.length;
      for (let i = 0; i < 10; i++) await w.dispatcher.deliver(event(`job_flood_${i}`, '/ok'));
      await w.dispatcher.deliver({ keyId: w.otherKeyId, jobId: 'job_small', webhook: { url: rx.url + '/ok' }, type: 'job.completed', data: {} });
      await w.dispatcher.start();
      const ours = () => rx.received.slice(from).map((r) => JSON.parse(r.body).jobId as string).filter((id) => id.startsWith('job_flood_') || id === 'job_small');
      const until = Date.now() + 30_000;
      while (ours().length < 11 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      const order = ours();
      assert.equal(order.length, 11);
      // Attempts go TEST_WEBHOOK_SETTINGS.concurrency (4) at a time: the other key's is in the first round.
      assert.ok(order.indexOf('job_small') < 4, order.join(' '));
    });

    it("answers 404 for another key's job and for an unknown one", async () => {
      assert.equal((await w.deliveries('job_sig', true)).status, 404);
      assert.equal((await w.deliveries('job_nope')).status, 404);
    });
  });
}
