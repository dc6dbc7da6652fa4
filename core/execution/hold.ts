/** A paid call's credit hold, which its handler may grow (`ctx.reserveFor`). */
import type { Ledger } from '../credits/ledger.js';
import type { CostRule, Units } from '../credits/cost.js';
import { isCreditAmount } from '../credits/cost.js';
import type { ExecuteRequest } from './executor.js';

/**
 * One call's credit hold: what it reserved up front (`CostRule.initial`, else the rule's
 * maximum), grown by the handler's `ctx.reserveFor(units)` to the price of what it measured,
 * never past the maximum. Requests to grow are taken one after another, so the amount held is
 * always what the ledger holds.
 */
export class Hold {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ledger: Ledger,
    private readonly req: ExecuteRequest,
    private readonly cost: CostRule,
    /** Credits the ledger holds for the call now. */
    public amount: number,
    private readonly most: number,
  ) {}

  growTo(wanted: Units): Promise<void> {
    const next = this.queue.then(async () => {
      const priced = this.cost.settle(this.req.input, wanted);
      const target = isCreditAmount(priced) ? Math.min(priced, this.most) : this.most;
      if (target <= this.amount) return;
      if (this.amount === 0) await this.ledger.reserve(this.req.key, this.req.requestId, target);
      else await this.ledger.extend(this.req.key, this.req.requestId, target - this.amount);
      this.amount = target;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}
