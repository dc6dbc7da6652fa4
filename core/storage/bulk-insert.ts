/**
 * Inserts many rows with one statement: each column travels as one array parameter and
 * `unnest` turns them back into rows. On PGlite this is ~15× cheaper than one INSERT per row,
 * which is what makes group commit pay off.
 */
import type { Queryable } from './db.js';

/** A column and its SQL type (used for the array cast). */
export interface Column {
  name: string;
  type: 'text' | 'bigint' | 'integer' | 'timestamptz' | 'boolean';
}

/** Inserts `rows` (each an array in column order) into `table`. */
export async function bulkInsert(q: Queryable, table: string, columns: Column[], rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const arrays = columns.map((_, i) => rows.map((r) => r[i] ?? null));
  const casts = columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
  await q.query(`INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) SELECT * FROM unnest(${casts})`, arrays);
}
