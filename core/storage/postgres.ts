/** PostgreSQL through a `pg` pool, shared by every instance of the service. */
import pg from 'pg';
import type { Db, Queryable } from './db.js';

// BIGINT columns hold credits; they always fit in a JS number (checked at write time).
pg.types.setTypeParser(20, (v) => Number(v));

/** Connects to `DATABASE_URL`. */
export async function openPostgres(url: string, opts: { max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  await pool.query('SELECT 1');
  return {
    kind: 'postgres',
    query: async (sql, params) => (await pool.query(sql, params as any[])).rows,
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const q: Queryable = { query: async (sql, params) => (await client.query(sql, params as any[])).rows };
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
