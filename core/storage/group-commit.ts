/**
 * Group commit: many callers' writes go into one transaction, and each caller is answered once
 * the transaction holding its write has committed. While one batch commits the next one fills,
 * so an idle system adds no delay and a busy one pays one commit per batch, not per request.
 */
import type { Db, Queryable } from './db.js';

/** A write: a function run inside the batch transaction. */
export type Write = (tx: Queryable) => Promise<void>;

/** Batches writes into shared transactions. */
export class GroupCommitter {
  private pending: { write: Write; done: (err?: unknown) => void }[] = [];
  private flushing: Promise<void> | null = null;
  /** Runs once per batch before the writes, to coalesce state (e.g. one UPDATE per key). */
  private readonly beforeCommit: ((tx: Queryable) => Promise<void>) | undefined;

  constructor(private readonly db: Db, opts: { beforeCommit?: (tx: Queryable) => Promise<void> } = {}) {
    this.beforeCommit = opts.beforeCommit;
  }

  /** Queues a write and resolves when it is durable. */
  submit(write: Write): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ write, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.flushing) this.flushing = this.loop();
    });
  }

  private async loop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.db.transaction(async (tx) => {
          if (this.beforeCommit) await this.beforeCommit(tx);
          for (const item of batch) await item.write(tx);
        });
        for (const item of batch) item.done();
      } catch (err) {
        for (const item of batch) item.done(err);
      }
    }
    this.flushing = null;
  }

  /** Waits until everything submitted so far is written. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}
