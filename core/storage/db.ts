/**
 * The SQL database behind keys, ledger and usage: PGlite embedded under `DATA_DIR` by default
 * (the same SQL as PostgreSQL, nothing to install), PostgreSQL when `DATABASE_URL` is set.
 */

/** A result row. */
export type Row = Record<string, any>;

/** How a statement is run. */
export interface QueryOptions {
  /**
   * The statement text is fixed and runs on every call (only its parameters change): PostgreSQL
   * keeps its plan per connection as a prepared statement instead of planning it each time.
   * Planning the ledger's batch statements costs 1–2 ms, more than running them.
   */
  prepared?: boolean;
}

/** Something that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  query<R extends Row = Row>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<R[]>;
  /** Bulk load with `COPY … FROM` in CSV, where the driver supports it (the embedded database). */
  copyCsv?(table: string, columns: string[], csv: string): Promise<void>;
}

/** A database with transactions. */
export interface Db extends Queryable {
  /** `embedded` (PGlite, one process owns it) or `postgres` (shared by instances). */
  readonly kind: 'embedded' | 'postgres';
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs several statements without parameters at once (the simple query protocol), outside any
   * open transaction. The embedded database needs it for libraries that send scripts (pg-boss's
   * migrations); PostgreSQL's pool does it through `query`. Answers the last statement's rows.
   */
  exec?(sql: string): Promise<Row[]>;
  close(): Promise<void>;
}
