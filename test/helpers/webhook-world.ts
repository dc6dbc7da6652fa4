/**
 * The webhook dispatcher wired for a test, on one store: a pg-boss instance of its own (its own
 * schema on PostgreSQL; on the embedded store, a PGlite with a minimal `executeSql` adapter), the
 * HTTP engine with the SSRF guard open to 127.0.0.1 only, and the key holder's view of secrets
 * and deliveries (through the real server's routes on PostgreSQL).
 */
import PgBoss from 'pg-boss';
import { PGlite } from '@electric-sql/pglite';
import { startServer, type TestServer } from './server.js';
import { postgresBackend, type Backend } from './storage.js';
import { testServiceConfig } from '../fixtures/test-plugins.js';
import { openPostgres } from '../../core/storage/postgres.js';
import { migrate } from '../../core/storage/migrations.js';
import type { Db, Queryable, Row } from '../../core/storage/db.js';
import { KeyStore } from '../../core/keys/key-store.js';
import { createHttpEngineWith } from '../../core/engines/http/index.js';
import { WebhookSecrets } from '../../core/webhooks/secret-store.js';
import { WebhookDeliveries } from '../../core/webhooks/delivery-store.js';
import { WebhookDispatcher } from '../../core/webhooks/dispatcher.js';
import type { WebhookSettings } from '../../core/webhooks/settings.js';

/** Small values, so a retry comes within a couple of seconds (pg-boss counts whole seconds). */
export const TEST_WEBHOOK_SETTINGS: WebhookSettings = { timeoutMs: 1000, retryLimit: 2, retryDelaySeconds: 1, concurrency: 4, pollMs: 500 };

/** What a test sees of one store. */
export interface WebhookWorld {
  name: string;
  keyId: string;
  otherKeyId: string;
  dispatcher: WebhookDispatcher;
  secret(): Promise<string>;
  rotate(): Promise<string>;
  /** Makes `jobId` a job of `keyId` where the deliveries route asks the job engine (PostgreSQL). */
  ensureJob(jobId: string, keyId: string): Promise<void>;
  /** The deliveries of a job as `key` (the first key unless `other`) sees them: status and items. */
  deliveries(jobId: string, other?: boolean, page?: { page: number; limit: number }): Promise<{ status: number; items: any[] }>;
  /** The delivery records themselves (what the job engine's purge calls). */
  store: WebhookDeliveries;
  close(): Promise<void>;
}

const log = { error: () => {}, warn: () => {} };

async function wire(db: Db, boss: PgBoss) {
  boss.on('error', () => {});
  await boss.start();
  const http = createHttpEngineWith({ env: { ALLOW_HOSTS: '127.0.0.1' } });
  const secrets = new WebhookSecrets(db);
  const deliveries = new WebhookDeliveries(db);
  const dispatcher = new WebhookDispatcher({ boss, http, secrets, deliveries, settings: TEST_WEBHOOK_SETTINGS, log });
  await dispatcher.start();
  const stop = async () => {
    await dispatcher.stop();
    await boss.stop({ graceful: false, wait: true });
    await http.close();
  };
  return { secrets, deliveries, dispatcher, stop };
}

/** PostgreSQL: a fresh database, the real server on it, and the dispatcher beside it. */
export async function postgresWorld(): Promise<WebhookWorld> {
  const b: Backend = await postgresBackend();
  const s: TestServer = await startServer({ env: b.env, serviceConfig: testServiceConfig() });
  const a = await s.createKey({ name: 'a' });
  const other = await s.createKey({ name: 'b' });
  const db = await openPostgres(b.env.DATABASE_URL!);
  const boss = new PgBoss({ connectionString: b.env.DATABASE_URL!, schema: 'pgboss_hooks_test', schedule: false, max: 4 });
  const w = await wire(db, boss);
  return {
    name: 'postgres',
    keyId: a.id,
    otherKeyId: other.id,
    dispatcher: w.dispatcher,
    secret: async () => (await s.call('GET', '/api/v2/webhook-secret', { key: a.key })).json.data.secret,
    rotate: async () => (await s.call('POST', '/api/v2/webhook-secret', { key: a.key })).json.data.secret,
    store: w.deliveries,
    async ensureJob(jobId, keyId) {
      // The route lists the deliveries of a job the key has: the events here are made up, so the
      // job they name is recorded as a finished job (the engine leaves finished jobs be).
      await db.query(
        `INSERT INTO jobs (id, key_id, type, target, stepwise, input, status, finished_at) VALUES ($1, $2, 'capability', 'test', false, '{}', 'completed', now()) ON CONFLICT (id) DO NOTHING`,
        [jobId, keyId],
      );
    },
    async deliveries(jobId, asOther, p) {
      const query = p ? `?page=${p.page}&limit=${p.limit}` : '';
      const r = await s.call('GET', `/api/v2/jobs/${encodeURIComponent(jobId)}/deliveries${query}`, { key: asOther ? other.key : a.key });
      if (r.status === 200 && r.json.object !== 'delivery_list') throw new Error(r.text);
      return { status: r.status, items: r.json?.data?.items ?? [] };
    },
    async close() {
      await w.stop();
      await db.close();
      await s.close();
      await b.dispose();
    },
  };
}

/**
 * The embedded store: PGlite in memory. pg-boss sends its migrations as several statements in one
 * text without parameters, which PGlite runs only through `exec`.
 */
export async function embeddedWorld(): Promise<WebhookWorld> {
  const pg = await PGlite.create('memory://');
  const q: Queryable = { query: async <R extends Row>(sql: string, params?: unknown[]) => (await pg.query<R>(sql, params as any[])).rows };
  const db: Db = { kind: 'embedded', ...q, transaction: (fn) => pg.transaction((tx) => fn({ query: async <R extends Row>(sql: string, p?: unknown[]) => (await tx.query<R>(sql, p as any[])).rows })), close: () => pg.close() };
  await migrate(db);
  const keys = new KeyStore(db, null);
  const a = (await keys.create({ name: 'a', credits: 0, rateLimitPerMinute: 600 })).record;
  const other = (await keys.create({ name: 'b', credits: 0, rateLimitPerMinute: 600 })).record;
  const executeSql = async (text: string, values?: unknown[]) => {
    if (values && values.length) return { rows: (await pg.query(text, values as any[])).rows };
    const results = await pg.exec(text);
    return { rows: results.at(-1)?.rows ?? [] };
  };
  const boss = new PgBoss({ db: { executeSql } as any, schema: 'pgboss_hooks_test', schedule: false });
  const w = await wire(db, boss);
  return {
    name: 'embedded',
    keyId: a.id,
    otherKeyId: other.id,
    dispatcher: w.dispatcher,
    secret: async () => (await w.secrets.get(a.id)).secret,
    rotate: async () => (await w.secrets.rotate(a.id)).secret,
    // The route's own rule (server/v2/job-deliveries.ts), over the same store.
    store: w.deliveries,
    // The route's rule over this store knows a job by its events: nothing to record.
    async ensureJob() {},
    async deliveries(jobId, asOther, p) {
      const keyId = asOther ? other.id : a.id;
      if (!(await w.deliveries.hasJob(keyId, jobId))) return { status: 404, items: [] };
      return { status: 200, items: await w.deliveries.listForJob(keyId, jobId, p?.page, p?.limit) };
    },
    async close() {
      await w.stop();
      await pg.close();
    },
  };
}
