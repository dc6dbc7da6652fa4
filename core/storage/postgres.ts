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

/** Connects to `DATABASE_URL`. */
export async function openPostgres(url: string, opts: { max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  await pool.query('SELECT 1');
  return {
    kind: 'postgres',
    query: async (sql, params, opts) => (await pool.query(config(sql, params, opts))).rows,
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
