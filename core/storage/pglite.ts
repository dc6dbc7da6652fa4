/** Embedded PGlite database stored in a directory (or in memory for `memory://`). */
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, Row } from './db.js';

/** Opens (creating if needed) the embedded database at `dir`. */
export async function openPglite(dir: string): Promise<Db> {
  if (!dir.startsWith('memory://')) await mkdir(dir, { recursive: true });
  const pg = await PGlite.create(dir);
  const run = async <R extends Row>(q: { query: PGlite['query'] }, sql: string, params?: unknown[]) =>
    (await q.query<R>(sql, params as any[])).rows;
  return {
    kind: 'embedded',
    query: (sql, params) => run(pg, sql, params),
    transaction: (fn) =>
      pg.transaction(async (tx) => {
        const q: Queryable = { query: (sql, params) => run(tx as any, sql, params) };
        return fn(q);
      }),
    close: () => pg.close(),
  };
}
