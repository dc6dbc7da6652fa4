/**
 * Credit holds of a stepwise job's items (issue 25 "Money"): before an item runs, the price of
 * the job's last charged item is held for it; a resumed item whose earlier attempt was charged
 * holds nothing (it is not charged again).
 */
import type { KeyRecord } from '../keys/types.js';
import { InsufficientCreditsError } from '../errors.js';
import type { ClaimedItem, JobRecord } from './types.js';
import type { HeldItem, RunnerDeps } from './runner-deps.js';
import { earlierAttempts, requestIdOf } from './request-ids.js';

/** Holds items' credits; remembers each job's last price on this instance. */
export class ItemHolds {
  /** Price of each job's last charged item on this instance: the next item's hold. */
  private readonly lastPrice = new Map<string, number>();

  constructor(private readonly d: Pick<RunnerDeps, 'store' | 'ledger'>) {}

  /** The job's items now cost `price` each, as far as anyone knows. */
  remember(jobId: string, price: number): void {
    this.lastPrice.set(jobId, price);
  }

  /** The job ended: nothing more will be held for it. */
  forget(jobId: string): void {
    this.lastPrice.delete(jobId);
  }

  /**
   * Takes each claimed item's hold, all in one go (one ledger batch per claim rather than a round
   * trip before each step): what the job's last item cost, or nothing for a resumed item whose
   * earlier attempt was charged (it is not charged again). Answers the items held, and those
   * refused with the refusal when the key cannot cover them.
   */
  async hold(job: JobRecord, key: KeyRecord, items: ClaimedItem[]): Promise<{ ready: HeldItem[]; refused: ClaimedItem[]; err?: InsufficientCreditsError }> {
    const price = this.lastPrice.get(job.id) ?? 0;
    const ready: HeldItem[] = [];
    const refused: ClaimedItem[] = [];
    let err: InsufficientCreditsError | undefined;
    await Promise.all(
      items.map(async (item) => {
        const prior = item.attempts > 1 ? await this.d.store.charged(earlierAttempts(job.id, item)) : 0;
        const hold = prior > 0 ? 0 : price;
        try {
          if (hold > 0) await this.d.ledger.reserve(key, requestIdOf(job.id, item), hold);
          ready.push({ item, prior, hold });
        } catch (e) {
          if (!(e instanceof InsufficientCreditsError)) throw e;
          err ??= e;
          refused.push(item);
        }
      }),
    );
    ready.sort((a, b) => a.item.id - b.item.id);
    return { ready, refused, err };
  }
}
