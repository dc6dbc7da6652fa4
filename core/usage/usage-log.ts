/**
 * The usage log: one row per call (design: "Every call writes a usage row"). Rows are buffered and
 * written in batches so logging never sits on the request path; `flush()` runs at shutdown and
 * before reads so a client sees its own calls.
 */
import type { Db, Row } from '../storage/db.js';
import { bulkInsert, type Column } from '../storage/bulk-insert.js';
import { reportBatch } from '../storage/group-commit.js';
import type { CallStart, UsageJournal } from './journal.js';
import type { UsageRow } from './usage-row.js';

export type { UsageRow } from './usage-row.js';

/** Filters of `GET /api/v2/usage` (issue: objectType, objectId, status, provider, page, limit). */
export interface UsageQuery {
  objectType?: string;
  objectId?: string;
  status?: number | 'success' | 'error';
  provider?: string;
  /** Only rows a provider served (a provider is recorded). */
  providerServed?: boolean;
  page: number;
  limit: number;
}

const COLUMNS: Column[] = [
  { name: 'request_id', type: 'text' },
  { name: 'key_id', type: 'text' },
  { name: 'lane', type: 'text' },
  { name: 'object_type', type: 'text' },
  { name: 'object_id', type: 'text' },
  { name: 'provider', type: 'text' },
  { name: 'status', type: 'integer' },
  { name: 'code', type: 'text' },
  { name: 'credits', type: 'bigint' },
  { name: 'latency_ms', type: 'integer' },
  { name: 'request_source', type: 'text' },
  { name: 'created_at', type: 'timestamptz' },
  { name: 'units', type: 'text' },
];

/** Buffered writer and reader of usage rows. */
export class UsageLog {
  private buffer: UsageRow[] = [];
  private writing: Promise<void> = Promise.resolve();
  /** The pending batch write, armed by the first row after a write (none while nothing is queued). */
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  private failures = 0;
  private readonly observers = new Set<(row: UsageRow) => void>();
  /** Write-ahead journal of calls and rows not yet committed (set by the server at start). */
  private journal: UsageJournal | undefined;

  constructor(
    private readonly db: Db,
    private readonly onError: (err: unknown, dropped: number) => void = () => {},
    private readonly maxBatch = 500,
    /** Rows kept while the database refuses them; beyond this the oldest are dropped (and logged). */
    private readonly maxBuffered = 100_000,
  ) {
  }

  /**
   * Writes the queued rows in 200 ms. A timer only while rows wait: an interval woke an idle
   * service five times a second for nothing (issue 27: idle CPU).
   */
  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, 200);
    this.timer.unref();
  }

  /** Subscribes to every row as it is recorded (metrics); returns the unsubscribe. */
  observe(fn: (row: UsageRow) => void): () => void {
    this.observers.add(fn);
    return () => this.observers.delete(fn);
  }

  /** From now on, calls and rows are journaled until their rows are committed (journal.ts). */
  attachJournal(journal: UsageJournal): void {
    this.journal = journal;
  }

  /** A call passed authentication and starts: journaled so a crash cannot lose it. */
  begin(call: CallStart): void {
    this.journal?.begin(call);
  }

  /** The largest row id now (the journal's floor for deduplication on replay). */
  async maxId(): Promise<number> {
    const rows = await this.db.query<{ max: string | null }>('SELECT max(id) AS max FROM usage_log');
    return Number(rows[0]?.max ?? 0);
  }

  /** Writes rows recovered from a journal at start, as one batch. */
  insertRecovered(rows: UsageRow[]): Promise<void> {
    return this.insert(rows);
  }

  /**
   * Queues a row. `then` (sending the answer) runs once the row is safe from a kill: at once
   * without a journal, else when the journal's write of this tick is done.
   */
  record(row: UsageRow, then?: () => void): void {
    for (const observe of this.observers) observe(row);
    if (this.journal) this.journal.finish(row, then);
    else then?.();
    this.buffer.push(row);
    if (this.buffer.length >= this.maxBatch) void this.flush();
    else this.schedule();
  }

  /** Writes everything queued so far. */
  flush(): Promise<void> {
    const rows = this.buffer;
    this.buffer = [];
    if (rows.length > 0) {
      this.writing = this.writing
        .then(() => this.insert(rows))
        .then(
          () => {
            this.failures = 0;
            this.journal?.done(rows.map((r) => r.requestId));
          },
          (err) => {
            // A failed write is retried with the next batch, three times; then those rows are
            // dropped and logged, so one bad batch cannot stop usage logging for everyone.
            this.failures += 1;
            if (this.failures >= 3) {
              this.failures = 0;
              this.onError(err, rows.length);
              return;
            }
            this.buffer.unshift(...rows);
            const excess = this.buffer.length - this.maxBuffered;
            if (excess > 0) this.onError(err, this.buffer.splice(0, excess).length);
            this.schedule();
          },
        );
    }
    return this.writing;
  }

  private async insert(rows: UsageRow[]): Promise<void> {
    reportBatch('usage', rows.length);
    await bulkInsert(
      this.db,
      'usage_log',
      COLUMNS,
      rows.map((r) => [r.requestId, r.keyId, r.lane, r.objectType, r.objectId, r.provider, r.status, r.code, r.credits, r.latencyMs, r.requestSource, r.createdAt, r.units && Object.keys(r.units).length > 0 ? JSON.stringify(r.units) : null]),
    );
  }

  /** A key's rows, newest first. */
  async list(keyId: string | null, q: UsageQuery): Promise<UsageRow[]> {
    await this.flush();
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (keyId) add('key_id = ?', keyId);
    if (q.objectType) add('object_type = ?', q.objectType);
    if (q.objectId) add('object_id = ?', q.objectId);
    if (q.provider) add('provider = ?', q.provider);
    if (q.providerServed) where.push('provider IS NOT NULL');
    if (q.status === 'success') where.push('status < 400');
    else if (q.status === 'error') where.push('status >= 400');
    else if (typeof q.status === 'number') add('status = ?', q.status);
    params.push(q.limit, (q.page - 1) * q.limit);
    const rows = await this.db.query(
      `SELECT * FROM usage_log ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return rows.map(rowToUsage);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
    this.journal?.close();
    this.journal = undefined;
  }
}

function rowToUsage(r: Row): UsageRow {
  return {
    requestId: r.request_id,
    keyId: r.key_id,
    lane: r.lane,
    objectType: r.object_type,
    objectId: r.object_id,
    provider: r.provider,
    status: Number(r.status),
    code: r.code,
    credits: Number(r.credits),
    latencyMs: Number(r.latency_ms),
    requestSource: r.request_source,
    createdAt: new Date(r.created_at),
    units: r.units ? (JSON.parse(r.units) as Record<string, number>) : null,
  };
}
