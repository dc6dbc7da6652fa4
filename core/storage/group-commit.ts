/**
 * Group commit: many callers' items go into one atomic write, and each caller is answered once
 * the write holding its item has committed. While one batch commits the next one fills, so an
 * idle system adds no delay and a busy one pays one commit per batch, not per request. The
 * writer should make the batch one statement: on PGlite an explicit transaction costs about
 * three times a single autocommitted statement.
 */
import type { Queryable } from './db.js';

/**
 * Batches items into shared atomic writes. `write` may return one result per item (in batch
 * order), which `submit` then resolves with.
 */
export class GroupCommitter<T, R = void> {
  private pending: T[] = [];
  private waiters: { resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: Queryable,
    /** Writes a batch atomically (one statement, or its own transaction). */
    private readonly write: (db: Queryable, batch: T[]) => Promise<R[] | void>,
  ) {}

  /** Queues an item and resolves (with its result) when it is durable. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push(item);
      this.waiters.push({ resolve, reject });
      if (!this.flushing) this.flushing = this.loop();
    });
  }

  private async loop(): Promise<void> {
    // Let the requests already in flight reach their commit point first, so batches fill.
    await new Promise((r) => setImmediate(r));
    while (this.pending.length > 0) {
      const batch = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        const results = await this.write(this.db, batch);
        waiters.forEach((w, i) => w.resolve((results ? results[i] : undefined) as R));
      } catch (err) {
        for (const w of waiters) w.reject(err ?? new Error('group commit failed'));
      }
      await new Promise((r) => setImmediate(r));
    }
    this.flushing = null;
  }

  /** Waits until everything submitted so far is written. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}
