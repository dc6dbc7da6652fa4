/**
 * Schema migrations, run at start in order and recorded in `schema_migrations`. An advisory lock
 * keeps two instances starting together from running them twice.
 */
import type { Db } from './db.js';

const MIGRATIONS: { id: number; sql: string }[] = [
  {
    id: 1,
    sql: `
      CREATE TABLE IF NOT EXISTS api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        key_prefix TEXT NOT NULL,
        credits BIGINT NOT NULL CHECK (credits >= 0),
        reserved BIGINT NOT NULL DEFAULT 0 CHECK (reserved >= 0),
        budget BIGINT,
        period_start TIMESTAMPTZ NOT NULL,
        period_spent BIGINT NOT NULL DEFAULT 0,
        rate_limit INTEGER NOT NULL,
        active BOOLEAN NOT NULL DEFAULT TRUE,
        policy JSONB NOT NULL DEFAULT '{}'::jsonb,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS ledger (
        id BIGSERIAL PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        request_id TEXT,
        kind TEXT NOT NULL,
        amount BIGINT NOT NULL,
        balance_after BIGINT NOT NULL,
        reason TEXT,
        target TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX IF NOT EXISTS ledger_charge_once ON ledger (request_id) WHERE kind = 'charge';
      CREATE INDEX IF NOT EXISTS ledger_key ON ledger (key_id, id DESC);
      CREATE TABLE IF NOT EXISTS reservations (
        request_id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        amount BIGINT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS usage_log (
        id BIGSERIAL PRIMARY KEY,
        request_id TEXT NOT NULL,
        key_id TEXT NOT NULL,
        lane TEXT NOT NULL,
        object_type TEXT NOT NULL,
        object_id TEXT NOT NULL,
        provider TEXT,
        status INTEGER NOT NULL,
        code TEXT,
        credits BIGINT NOT NULL DEFAULT 0,
        latency_ms INTEGER NOT NULL,
        request_source TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX IF NOT EXISTS usage_key ON usage_log (key_id, id DESC);
    `,
  },
  {
    // What each call produced (units such as pages, reviews or model tokens), as a JSON object.
    id: 2,
    sql: `ALTER TABLE usage_log ADD COLUMN IF NOT EXISTS units TEXT`,
  },
  {
    // Reservations live for one call and are only ever written by the statement that has just
    // updated (and locked) their key's row, and keys are never deleted: the foreign key checked
    // nothing those statements do not already guarantee, at about 10 µs a row on the hottest
    // write of every paid call (issue 18). The ledger, the money's record, keeps its own.
    id: 3,
    sql: `ALTER TABLE reservations DROP CONSTRAINT IF EXISTS reservations_key_id_fkey`,
  },
  {
    // GET /admin/stats reads a time range of the usage log: without this it reads all of it.
    id: 4,
    sql: `CREATE INDEX IF NOT EXISTS usage_created ON usage_log (created_at)`,
  },
  {
    // The hourly and daily roll-ups of the usage log behind GET /admin/stats (core/usage/usage-rollup.ts).
    id: 5,
    sql: `
      CREATE TABLE IF NOT EXISTS usage_rollup (
        hour TIMESTAMPTZ NOT NULL,
        dim TEXT NOT NULL,
        val TEXT NOT NULL,
        calls BIGINT NOT NULL,
        errors BIGINT NOT NULL,
        credits BIGINT NOT NULL,
        PRIMARY KEY (hour, dim, val)
      );
      CREATE TABLE IF NOT EXISTS usage_rollup_latency (
        hour TIMESTAMPTZ NOT NULL,
        bin INTEGER NOT NULL,
        n BIGINT NOT NULL,
        PRIMARY KEY (hour, bin)
      );
      CREATE TABLE IF NOT EXISTS usage_rollup_day (
        day TIMESTAMPTZ NOT NULL,
        dim TEXT NOT NULL,
        val TEXT NOT NULL,
        calls BIGINT NOT NULL,
        errors BIGINT NOT NULL,
        credits BIGINT NOT NULL,
        PRIMARY KEY (day, dim, val)
      );
      CREATE TABLE IF NOT EXISTS usage_rollup_day_latency (
        day TIMESTAMPTZ NOT NULL,
        bin INTEGER NOT NULL,
        n BIGINT NOT NULL,
        PRIMARY KEY (day, bin)
      );
      CREATE TABLE IF NOT EXISTS usage_rollup_mark (id INTEGER PRIMARY KEY, upto TIMESTAMPTZ, days_upto TIMESTAMPTZ);
      INSERT INTO usage_rollup_mark (id, upto) VALUES (1, NULL) ON CONFLICT (id) DO NOTHING
    `,
  },
  {
    // Issue 27: the scrape cache (shared by instances on one store; the key is a hash of the URL
    // and every option that shapes the answer) and change-tracking snapshots, one per key, URL
    // and tag, removed with their key.
    id: 6,
    sql: `
      CREATE TABLE IF NOT EXISTS scrape_cache (
        cache_key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        stored_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX IF NOT EXISTS scrape_cache_age ON scrape_cache (stored_at);
      CREATE TABLE IF NOT EXISTS page_snapshots (
        key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        tag TEXT NOT NULL DEFAULT '',
        content TEXT NOT NULL,
        taken_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (key_id, url, tag)
      );
      CREATE INDEX IF NOT EXISTS page_snapshots_age ON page_snapshots (taken_at)
    `,
  },
  {
    // Issue 25: jobs and their items (core/jobs/). One row per item keyed (job_id, item_key), so
    // an item is never run to a result or charged twice; `result_seq` orders results as they
    // finish, so a client paging with a cursor never misses a later one.
    id: 7,
    sql: `
      CREATE TABLE IF NOT EXISTS jobs (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        type TEXT NOT NULL,
        target TEXT NOT NULL,
        provider TEXT,
        stepwise BOOLEAN NOT NULL,
        input JSONB NOT NULL,
        options JSONB,
        webhook JSONB,
        status TEXT NOT NULL,
        seeded BOOLEAN NOT NULL DEFAULT FALSE,
        item_limit INTEGER,
        total INTEGER,
        done INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0,
        credits_charged BIGINT NOT NULL DEFAULT 0,
        data JSONB,
        error_code TEXT,
        error_message TEXT,
        runner TEXT,
        runner_until TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        started_at TIMESTAMPTZ,
        finished_at TIMESTAMPTZ
      );
      CREATE INDEX IF NOT EXISTS jobs_key ON jobs (key_id, created_at DESC);
      CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status, created_at);
      CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
      CREATE SEQUENCE IF NOT EXISTS job_result_seq;
      CREATE TABLE IF NOT EXISTS job_items (
        id BIGSERIAL UNIQUE,
        job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        item_key TEXT NOT NULL,
        data JSONB,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_until TIMESTAMPTZ,
        result JSONB,
        result_seq BIGINT,
        credits BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (job_id, item_key)
      );
      CREATE INDEX IF NOT EXISTS job_items_open ON job_items (job_id, status, id);
      CREATE INDEX IF NOT EXISTS job_items_results ON job_items (job_id, result_seq) WHERE result_seq IS NOT NULL
    `,
  },
  {
    // Issue 25: webhook signing secrets (one per key), the events recorded for delivery and every
    // attempt made, all removed with their key. An event's id is its `webhook-id` header.
    id: 8,
    sql: `
      CREATE TABLE IF NOT EXISTS webhook_secrets (
        key_id TEXT PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
        secret TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS webhook_events (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        job_id TEXT NOT NULL,
        type TEXT NOT NULL,
        url TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX IF NOT EXISTS webhook_events_job ON webhook_events (key_id, job_id, created_at);
      CREATE INDEX IF NOT EXISTS webhook_events_pending ON webhook_events (key_id) WHERE status = 'pending';
      CREATE TABLE IF NOT EXISTS webhook_attempts (
        event_id TEXT NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
        attempt INTEGER NOT NULL,
        attempted_at TIMESTAMPTZ NOT NULL,
        status INTEGER,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        PRIMARY KEY (event_id, attempt)
      )
    `,
  },
  {
    // Issue 27: change monitors, removed with their key. `next_run_at` is the next tick,
    // `last_tick` the last one a worker started and `run_started_at` set while it runs, so a
    // tick is claimed once and run once, and runs of one monitor never overlap.
    id: 9,
    sql: `
      CREATE TABLE IF NOT EXISTS monitors (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        options TEXT NOT NULL,
        interval_ms BIGINT NOT NULL,
        webhook TEXT,
        status TEXT NOT NULL DEFAULT 'active',
        next_run_at TIMESTAMPTZ NOT NULL,
        last_tick BIGINT NOT NULL DEFAULT 0,
        run_started_at TIMESTAMPTZ,
        last_run TEXT,
        runs BIGINT NOT NULL DEFAULT 0,
        changes BIGINT NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX IF NOT EXISTS monitors_due ON monitors (next_run_at) WHERE status = 'active';
      CREATE INDEX IF NOT EXISTS monitors_key ON monitors (key_id, created_at DESC)
    `,
  },
  {
    // Issue 27: change tracking's json mode keeps the fields the model extracted beside the
    // markdown of the same snapshot (same retention, deleted with the key).
    id: 10,
    sql: `ALTER TABLE page_snapshots ADD COLUMN IF NOT EXISTS extracted TEXT`,
  },
];

/** Brings the schema up to date. */
export async function migrate(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(727274)');
    await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const done = new Set((await tx.query<{ id: number }>('SELECT id FROM schema_migrations')).map((r) => r.id));
    for (const m of MIGRATIONS) {
      if (done.has(m.id)) continue;
      for (const stmt of m.sql.split(';').map((s) => s.trim()).filter(Boolean)) await tx.query(stmt);
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
    }
  });
}
