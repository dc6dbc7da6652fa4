/**
 * Group commit: many callers' items go into one atomic write, and each caller is answered once
 * the write holding its item has committed. While one batch commits the next one fills, so an
 * idle system adds no delay and a busy one pays one commit per batch, not per request. The
 * writer should make the batch one statement: on PGlite an explicit transaction costs about
 * three times a single autocommitted statement.
 */
import type { Db, Queryable } from './db.js';

/** Batches items into shared transactions written by `write`. */
export class GroupCommitter<T> {
  private pending: T[] = [];
  private waiters: ((err?: unknown) => void)[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    /** Writes a batch atomically (one statement, or its own transaction). */
    private readonly write: (db: Queryable, batch: T[]) => Promise<void>,
  ) {}

  /** Queues an item and resolves when it is durable. */
  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push(item);
      this.waiters.push((err) => (err ? reject(err) : resolve()));
      if (!this.flushing) this.flushing = this.loop();
    });
  }

  private async loop(): Promise<void> {
    // Let the requests already in flight reach their commit point first: on PGlite a transaction
    // runs on this thread, so a batch taken too early stays small and blocks everyone for it.
    await new Promise((r) => setImmediate(r));
    while (this.pending.length > 0) {
      const batch = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      let failure: unknown;
      try {
        await this.write(this.db, batch);
      } catch (err) {
        failure = err ?? new Error('group commit failed');
      }
      for (const done of waiters) done(failure);
      await new Promise((r) => setImmediate(r));
    }
    this.flushing = null;
  }

  /** Waits until everything submitted so far is written. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}
