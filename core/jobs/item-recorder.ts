/**
 * Group commit of a turn's finished items (issue 25, bench:jobs): an item that finished waits for
 * the batch in flight, then goes with every item that finished meanwhile in the next one: their
 * charges settled together (one ledger write), then their records in one statement
 * (`JobItems.record`), so a job running many items costs two writes per batch, not several per
 * item. An item is answered once its batch is durable. Charges are durable before records (the
 * ledger keeps each under the item's request id), so an instance killed in between loses only
 * records, and a resumed item finds its charge and is not charged again.
 *
 * A batch is written once `batchSize` items wait, once the turn says it cannot go on without
 * them (`urgent`: no step running, no item to claim until these offer their links, the backlog
 * full, the turn stopping), or `lingerMs` after the first of them finished. On the embedded
 * store a statement's cost is mostly per statement (planning, the commit), not per item, so
 * waiting a few milliseconds for more items cuts the store's work per item without holding the
 * turn back.
 */
import type { Ledger } from '../credits/ledger.js';
import type { ItemOutcome, JobItems, NewItem } from './item-store.js';

/** Keys offered in one turn that are remembered, so a link seen again is not sent again. */
const SEEN_CAP = 100_000;

/** A charge to make before its item is recorded: settle `requestId`'s hold at `amount`. */
export interface ItemCharge {
  requestId: string;
  amount: number;
  target: string;
  /** The item's key, named in the refund when the item turns out not to be this claim's. */
  itemKey: string;
}

interface Waiting {
  outcome: ItemOutcome;
  charge?: ItemCharge;
  resolve(recorded: boolean): void;
  reject(err: unknown): void;
}

/** Records one turn's finished items in batches. */
export interface RecorderTiming {
  /** Items that make a batch worth writing at once. */
  batchSize: number;
  /** Longest an item waits for others to join its batch, in ms. */
  lingerMs: number;
  /** True when the turn waits on what this recorder holds: then the batch goes at once. */
  urgent(): boolean;
  /**
   * True once the job is known cancelled (the store has ended it): waiting items are then not
   * recorded (only items recorded before a cancel count) and their holds are released uncharged.
   */
  cancelled(): boolean;
}

export class ItemRecorder {
  private waiting: Waiting[] = [];
  private offers: NewItem[] = [];
  private flushing = false;
  private linger: ReturnType<typeof setTimeout> | undefined;
  /** Keys this turn has already sent to the store (the crawl's frontier dedups them too). */
  private readonly seen = new Set<string>();
  /** Batches written that offered new items (a claim that ran meanwhile may not have seen them). */
  offered = 0;

  /** True once a batch completed the job (it left nothing to run). */
  completed = false;

  /** `onOffered` runs once a batch that offered new items is durable. */
  constructor(
    private readonly items: JobItems,
    private readonly ledger: Pick<Ledger, 'settle' | 'release' | 'adjust'>,
    private readonly job: { id: string; keyId: string },
    private readonly onOffered: () => void,
    private readonly timing: RecorderTiming = { batchSize: 1, lingerMs: 0, urgent: () => true, cancelled: () => false },
  ) {}

  /**
   * Records `outcome` with the items it found, charging `charge` first; answers whether it was
   * recorded (false: the item was no longer this claim's, and its charge, if any, was given
   * back). Rejects when its batch could not be written.
   */
  add(outcome: ItemOutcome, more: NewItem[] = [], charge?: ItemCharge): Promise<boolean> {
    for (const m of more) {
      if (this.seen.has(m.key)) continue;
      if (this.seen.size < SEEN_CAP) this.seen.add(m.key);
      this.offers.push(m);
    }
    const p = new Promise<boolean>((resolve, reject) => this.waiting.push({ outcome, charge, resolve, reject }));
    this.kick();
    return p;
  }

  /** Writes the waiting items now if a batch is due (the turn calls it before it waits). */
  kick(): void {
    if (this.flushing || this.waiting.length === 0) return;
    if (this.due()) {
      void this.flush();
      return;
    }
    this.linger ??= setTimeout(() => {
      this.linger = undefined;
      if (!this.flushing && this.waiting.length > 0) void this.flush();
    }, this.timing.lingerMs);
  }

  /** Whether the waiting items should be written without lingering. */
  private due(): boolean {
    return this.waiting.length >= this.timing.batchSize || this.timing.urgent();
  }

  /** Writes batches while one is due (the first one always), then leaves the rest to linger. */
  private async flush(): Promise<void> {
    this.flushing = true;
    clearTimeout(this.linger);
    this.linger = undefined;
    let first = true;
    try {
      while (this.waiting.length > 0 && (first || this.due())) {
        first = false;
        const batch = this.waiting;
        const offers = this.offers;
        this.waiting = [];
        this.offers = [];
        try {
          if (this.timing.cancelled()) {
            // The job ended before these were recorded: nothing of theirs is kept or charged.
            await Promise.all(batch.map((w) => w.charge && this.ledger.release(w.charge.requestId)));
            for (const w of batch) w.resolve(false);
            continue;
          }
          // The batch's charges go to the ledger together (one group-committed write), and are
          // durable before the items that carry them are recorded.
          await Promise.all(batch.map((w) => w.charge && this.ledger.settle(w.charge.requestId, w.charge.amount, w.charge.target)));
          const { recorded, completed } = await this.items.record(this.job.id, batch.map((w) => w.outcome), offers);
          if (completed) this.completed = true;
          // Finished meanwhile by another runner, which charged for it, or the job was cancelled
          // meanwhile (only items recorded before count): the charge is given back.
          await Promise.all(
            batch.map((w) => !recorded.has(w.outcome.id) && w.charge && this.ledger.adjust(this.job.keyId, w.charge.amount, `job ${this.job.id}: item ${w.charge.itemKey} finished twice; the second charge is refunded`)),
          );
          for (const w of batch) w.resolve(recorded.has(w.outcome.id));
          if (offers.length > 0) {
            this.offered++;
            this.onOffered();
          }
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
    // Items that came while the last batch was written and are not due yet linger.
    this.kick();
  }
}
