/**
 * Group commit of a turn's finished items (issue 25, bench:jobs): an item that finished waits for
 * the batch in flight, then goes with every item that finished meanwhile in the next one: their
 * charges settled together (one ledger write), then their records in one statement
 * (`JobItems.record`), so a job running many items costs two writes per batch, not several per
 * item. An item is answered once its batch is durable. Charges are durable before records (the
 * ledger keeps each under the item's request id), so an instance killed in between loses only
 * records, and a resumed item finds its charge and is not charged again.
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
}

interface Waiting {
  outcome: ItemOutcome;
  charge?: ItemCharge;
  resolve(recorded: boolean): void;
  reject(err: unknown): void;
}

/** Records one turn's finished items in batches. */
export class ItemRecorder {
  private waiting: Waiting[] = [];
  private offers: NewItem[] = [];
  private flushing = false;
  /** Keys this turn has already sent to the store (the crawl's frontier dedups them too). */
  private readonly seen = new Set<string>();
  /** Batches written that offered new items (a claim that ran meanwhile may not have seen them). */
  offered = 0;

  /** True once a batch completed the job (it left nothing to run). */
  completed = false;

  /** `onOffered` runs once a batch that offered new items is durable. */
  constructor(
    private readonly items: JobItems,
    private readonly ledger: Pick<Ledger, 'settle'>,
    private readonly jobId: string,
    private readonly onOffered: () => void,
  ) {}

  /**
   * Records `outcome` with the items it found; answers whether it was recorded (false: the item
   * was no longer this claim's). Rejects when its batch could not be written.
   */
  add(outcome: ItemOutcome, more: NewItem[] = [], charge?: ItemCharge): Promise<boolean> {
    for (const m of more) {
      if (this.seen.has(m.key)) continue;
      if (this.seen.size < SEEN_CAP) this.seen.add(m.key);
      this.offers.push(m);
    }
    const p = new Promise<boolean>((resolve, reject) => this.waiting.push({ outcome, charge, resolve, reject }));
    if (!this.flushing) void this.flush();
    return p;
  }

  /** Writes batches until nothing waits. */
  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        const offers = this.offers;
        this.waiting = [];
        this.offers = [];
        try {
          // The batch's charges go to the ledger together (one group-committed write), and are
          // durable before the items that carry them are recorded.
          await Promise.all(batch.map((w) => w.charge && this.ledger.settle(w.charge.requestId, w.charge.amount, w.charge.target)));
          const { recorded, completed } = await this.items.record(this.jobId, batch.map((w) => w.outcome), offers);
          if (completed) this.completed = true;
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
  }
}
