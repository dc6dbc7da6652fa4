/**
 * Group commit: many callers' items go into one atomic write, and each caller is answered once
 * the write holding its item has committed. While one batch commits the next one fills, so an
 * idle system adds no delay and a busy one pays one commit per batch, not per request. The
 * writer should make the batch one statement: on PGlite an explicit transaction costs about
 * three times a single autocommitted statement.
 */
import type { Queryable } from './db.js';

/** Told the size of every batch a committer writes (metrics: group-commit batch sizes). */
export type BatchObserver = (name: string, size: number) => void;
const batchObservers = new Set<BatchObserver>();

/** Subscribes to batch sizes of every committer in the process; returns the unsubscribe. */
export function observeBatches(fn: BatchObserver): () => void {
  batchObservers.add(fn);
  return () => batchObservers.delete(fn);
}

/** Reports a batch written by a writer that is not a GroupCommitter (the usage log's). */
export function reportBatch(name: string, size: number): void {
  for (const observe of batchObservers) observe(name, size);
}

/**
 * Batches items into shared atomic writes. `write` may return one result per item (in batch
 * order), which `submit` then resolves with.
 */
export class GroupCommitter<T, R = void> {
  private pending: T[] = [];
  private waiters: { resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false;
  private inFlight = 0;
  /** Batches being written, each settled (never rejected) when its write ends. */
  private readonly writing = new Set<Promise<void>>();
  /** Resolved when the batch now filling has been written; made only when `drain` asks. */
  private filling: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(
    private readonly db: Queryable,
    /** Writes a batch atomically (one statement, or its own transaction). */
    private readonly write: (db: Queryable, batch: T[]) => Promise<R[] | void>,
    /**
     * Batches that may be on their way at once. More than one hides the round trip to the
     * database; keep 1 where concurrent batches could lock the same rows in different orders.
     */
    private readonly maxInFlight = 1,
    /** Names this committer's batches for observers (e.g. `ledger`, `settle`). */
    private readonly name = 'batch',
  ) {}

  /** Queues an item and resolves (with its result) when it is durable. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push(item);
      this.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.pending.length === 0) return;
    this.scheduled = true;
    // Let the requests already in flight reach their commit point first, so batches fill.
    setImmediate(() => {
      this.scheduled = false;
      this.flushOne();
    });
  }

  private flushOne(): void {
    if (this.pending.length === 0 || this.inFlight >= this.maxInFlight) return;
    const batch = this.pending;
    const waiters = this.waiters;
    const filled = this.filling;
    this.pending = [];
    this.waiters = [];
    this.filling = undefined;
    this.inFlight += 1;
    reportBatch(this.name, batch.length);
    const written = (async () => {
      try {
        const results = await this.write(this.db, batch);
        waiters.forEach((w, i) => w.resolve((results ? results[i] : undefined) as R));
      } catch (err) {
        for (const w of waiters) w.reject(err ?? new Error('group commit failed'));
      }
    })();
    this.writing.add(written);
    void written.then(() => {
      this.writing.delete(written);
      this.inFlight -= 1;
      filled?.resolve();
      this.schedule();
    });
  }

  /**
   * Waits until everything submitted before this call is written (items submitted later do not
   * hold it up, so a busy committer never starves a reader).
   */
  async drain(): Promise<void> {
    const waits = [...this.writing];
    if (this.pending.length > 0) {
      if (!this.filling) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        this.filling = { promise, resolve };
      }
      waits.push(this.filling.promise);
    }
    await Promise.all(waits);
  }
}
