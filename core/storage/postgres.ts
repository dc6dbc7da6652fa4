/** PostgreSQL through a `pg` pool, shared by every instance of the service. */
import pg from 'pg';
import { createHash } from 'node:crypto';
import type { Db, QueryOptions, Queryable } from './db.js';

// BIGINT columns hold credits; they always fit in a JS number (checked at write time).
pg.types.setTypeParser(20, (v) => Number(v));

/** Statement names by SQL text: the same text always gets the same name on every connection. */
const names = new Map<string, string>();

/** The query config node-postgres runs: named (prepared once per connection) when asked. */
function config(sql: string, params: unknown[] | undefined, opts: QueryOptions | undefined): pg.QueryConfig {
  if (!opts?.prepared) return { text: sql, values: params as any[] };
  let name = names.get(sql);
  if (!name) {
    name = `cia_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    names.set(sql, name);
  }
  return { name, text: sql, values: params as any[] };
}

/**
 * A single statement PostgreSQL aborted to break a deadlock is tried again, up to this many times
 * in all. Two instances finishing and cancelling the same job lock its rows in opposite orders
 * (a full test run saw a cancel answered 500 for it); the aborted statement had no effect, so
 * running it again is what the caller asked for, and a ledger statement is not charged twice.
 * Transactions are not retried here: their callback may have done more than query.
 */
const DEADLOCK_ATTEMPTS = 3;

/** Whether `err` is PostgreSQL's deadlock_detected (SQLSTATE 40P01). */
function chosenAsDeadlockVictim(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '40P01';
}

/** Connects to `DATABASE_URL`. */
export async function openPostgres(url: string, opts: { max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  await pool.query('SELECT 1');
  return {
    kind: 'postgres',
    query: async (sql, params, opts) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return (await pool.query(config(sql, params, opts))).rows;
        } catch (err) {
          if (!chosenAsDeadlockVictim(err) || attempt >= DEADLOCK_ATTEMPTS) throw err;
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
        }
      }
    },
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const q: Queryable = { query: async (sql, params, opts) => (await client.query(config(sql, params, opts))).rows };
        const out = await fn(q);
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
