/**
 * A job's large input (issue 25 leftovers) through the real server on both stores: an input over
 * JOB_INPUT_INLINE_BYTES is kept in the file store as the `.json` file it is, owned by its job;
 * it outlives FILES_MAX_RETENTION_MS while the job waits; it goes with the job on every purge
 * path (retention after completing, after a cancel, a job row deleted behind the service's back,
 * which the orphan sweep at boot catches); and a job whose input was deleted by an operator fails
 * with a clear error and charges nothing.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { jobsConfig } from './fixtures/job-plugins.js';
import { waitJob } from './helpers/jobs.js';
import { openPglite } from '../core/storage/pglite.js';
import { PERMANENT_EXPIRES } from '../core/engines/files/types.js';

const SECRET = 'job-input-files-secret';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** An inline "file" far over the 1000-byte inline limit the servers below use. */
const BLOB = Buffer.alloc(6000, 7).toString('base64');

/** The service's own signed link to a file kept with the far expiry (owned files carry it). */
const linkOf = (s: TestServer, id: string) =>
  `${s.url}/files/${id}?expires=${PERMANENT_EXPIRES}&sig=${createHmac('sha256', SECRET).update(`${id}.${PERMANENT_EXPIRES}`).digest('hex')}`;

for (const { name, make } of BACKENDS) {
  describe(`large job inputs on ${name}`, () => {
    let backend: Backend;
    let s: TestServer;
    /** A data directory handed to a restarted server, which then leaves it behind. */
    let keptDir: string | undefined;
    const env = (extra: Record<string, string> = {}) => ({
      ...backend.env,
      JOB_INPUT_INLINE_BYTES: '1000',
      JOB_MAX_RUNNING_PER_KEY: '1',
      JOB_RETENTION_MS: '1500',
      FILES_MAX_RETENTION_MS: '1000',
      FILES_SWEEP_INTERVAL_MS: '200',
      FILES_SIGNING_SECRET: SECRET,
      ...extra,
    });
    before(async () => {
      backend = await make();
      s = await startServer({ serviceConfig: jobsConfig(), env: env() });
    });
    after(async () => {
      await s?.close();
      if (keptDir) await rm(keptDir, { recursive: true, force: true });
      await backend?.dispose();
    });

    const files = async (server = s) => (await server.admin('GET', '/files')).json.items as { id: string; contentType: string; size: number }[];
    const submit = async (key: string, input: unknown, server = s) => {
      const r = await server.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input } });
      assert.equal(r.status, 202, r.text);
      return r.json.data.id as string;
    };
    /** A job that keeps the key's one running slot until cancelled, so the next job waits queued. */
    const blocker = async (key: string) => {
      const id = await submit(key, { count: 500, delayMs: 100 });
      await waitJob(s, key, id, (j) => j.status === 'running');
      return id;
    };
    /** Submits a large-input job and answers it with the one file it added. */
    const submitLarge = async (key: string, input: unknown) => {
      const before = new Set((await files()).map((f) => f.id));
      const id = await submit(key, input);
      const added = (await files()).filter((f) => !before.has(f.id));
      assert.equal(added.length, 1, 'the input went to the file store');
      return { id, file: added[0]! };
    };
    const purged = async (key: string, id: string) => {
      for (let i = 0; i < 300; i++) {
        if ((await s.call('GET', `/api/v2/jobs/${id}?skipData=true`, { key })).status === 404) return;
        await sleep(100);
      }
      assert.fail(`job ${id} was not purged`);
    };

    it('keeps the input as a .json file owned by its job, past FILES_MAX_RETENTION_MS while it waits; runs from it; purges it with the job', async () => {
      const { key } = await s.createKey({ credits: 10_000 });
      const block = await blocker(key);
      const input = { count: 3, fail: [BLOB, 'p1'] };
      const { id, file } = await submitLarge(key, input);
      assert.deepEqual([file.contentType, file.size], ['application/json', JSON.stringify(input).length]);
      const got = await fetch(linkOf(s, file.id));
      assert.equal(got.status, 200);
      assert.match(got.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(await got.json(), input, 'the download route serves the input itself, not file metadata');

      // Twice the store's longest retention, with its sweeper running every 200 ms.
      await sleep(2000);
      assert.equal((await s.call('GET', `/api/v2/jobs/${id}?skipData=true`, { key })).json.data.status, 'queued');
      assert.equal((await fetch(linkOf(s, file.id))).status, 200, 'FILES_MAX_RETENTION_MS did not end a waiting job\'s input');

      assert.equal((await s.call('DELETE', `/api/v2/jobs/${block}`, { key })).status, 200);
      const done = await waitJob(s, key, id);
      // It ran with the input read back from the file: p1 failed as that input says.
      assert.deepEqual([done.status, done.progress.done, done.progress.failed, done.creditsCharged], ['completed', 2, 1, 20]);
      await purged(key, id);
      assert.equal((await fetch(linkOf(s, file.id))).status, 404, 'the input file went with the job');
      assert.ok(!(await files()).some((f) => f.id === file.id));
    });

    it('deletes the input of a job cancelled while queued when that job is purged', async () => {
      const { key } = await s.createKey({ credits: 10_000 });
      const block = await blocker(key);
      const { id, file } = await submitLarge(key, { count: 2, fail: [BLOB] });
      const cancelled = await s.call('DELETE', `/api/v2/jobs/${id}`, { key });
      assert.equal(cancelled.json.data.status, 'cancelled');
      assert.equal((await s.call('DELETE', `/api/v2/jobs/${block}`, { key })).status, 200);
      await purged(key, id);
      assert.equal((await fetch(linkOf(s, file.id))).status, 404);
    });

    it('fails a job whose input an operator deleted with a stated error, charging nothing for it', async () => {
      const { key } = await s.createKey({ credits: 10_000 });
      const block = await blocker(key);
      const { id, file } = await submitLarge(key, { count: 2, fail: [BLOB] });
      assert.equal((await s.admin('DELETE', `/files/${file.id}`)).status < 300, true);
      assert.equal((await s.call('DELETE', `/api/v2/jobs/${block}`, { key })).status, 200);
      const blockEnd = await waitJob(s, key, block);
      const end = await waitJob(s, key, id);
      assert.equal(end.status, 'failed');
      assert.equal(end.error.code, 'OPERATION_FAILED');
      assert.match(end.error.message, /input file is no longer stored.*Submit the job again/);
      assert.equal(end.creditsCharged, 0);
      // The cancelled blocker's turn gives back the holds of the items it had claimed ahead once it
      // notices the cancel, which on a loaded machine can be after the next job ended: wait for
      // the key's holds to be gone, then the balance is exactly what the blocker was charged.
      let balance = (await s.call('GET', '/api/v2/balance', { key })).json.data;
      for (let i = 0; i < 100 && balance.reserved > 0; i++) {
        await sleep(100);
        balance = (await s.call('GET', '/api/v2/balance', { key })).json.data;
      }
      assert.deepEqual([balance.credits, balance.reserved], [10_000 - blockEnd.creditsCharged, 0]);
    });

    it('deletes at boot the input of a job whose row is gone (deleted behind the service\'s back), keeping live jobs\' inputs', async () => {
      const dataDir = (keptDir = s.dataDir);
      const { key } = await s.createKey({ credits: 10_000 });
      const block = await blocker(key);
      const orphan = await submitLarge(key, { count: 2, fail: [BLOB] });
      const kept = await submitLarge(key, { count: 2, fail: [BLOB, 'kept'] });
      await s.close({ keepData: true });
      const sql = 'DELETE FROM jobs WHERE id = $1';
      if (backend.env.DATABASE_URL) {
        const c = new pg.Client({ connectionString: backend.env.DATABASE_URL });
        await c.connect();
        await c.query(sql, [orphan.id]);
        await c.end();
      } else {
        const db = await openPglite(join(dataDir, 'db'));
        await db.query(sql, [orphan.id]);
        await db.close();
      }
      s = await startServer({ serviceConfig: jobsConfig(), env: env({ JOB_RETENTION_MS: '3600000' }), dataDir });
      let left = await files();
      for (let i = 0; i < 100 && left.some((f) => f.id === orphan.file.id); i++) {
        await sleep(100);
        left = await files();
      }
      assert.ok(!left.some((f) => f.id === orphan.file.id), 'the orphaned input was swept');
      assert.ok(left.some((f) => f.id === kept.file.id), 'a live job\'s input stays');
      assert.equal((await s.call('DELETE', `/api/v2/jobs/${block}`, { key })).status, 200);
      assert.equal((await waitJob(s, key, kept.id)).status, 'completed');
    });
  });
}
