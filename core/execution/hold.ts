/**
 * The executor's second stage: the call's credit hold. Reserves what the call may cost before any
 * provider runs (403 when the key cannot cover it), and lets the handler grow it (`ctx.reserveFor`).
 */
import type { Ledger } from '../credits/ledger.js';
import type { CostRule, Units } from '../credits/cost.js';
import { isCreditAmount } from '../credits/cost.js';
import { InternalError } from '../errors.js';
import type { Admission, ExecuteRequest } from './request.js';

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

  /** Grows the hold to the price of `wanted` (capped at the rule's maximum); never shrinks it. */
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

/**
 * Prices the admitted call and asks the ledger for the hold. A cost rule that yields no usable
 * amount is a plugin bug, answered 500 before anything is reserved.
 */
export function holdAmounts(req: ExecuteRequest, admission: Admission): { first: number; most: number } {
  const { cost, targetId } = admission;
  const most = cost.reserve(req.input);
  const first = cost.initial ? Math.min(cost.initial(req.input), most) : most;
  if (!isCreditAmount(most) || !isCreditAmount(first)) throw new InternalError(undefined, { cause: new Error(`bad reservation ${first}/${most} for ${targetId}`) });
  return { first, most };
}

/** Reserves the first amount for the call; the returned hold is what the handler may grow. */
export async function openHold(ledger: Ledger, req: ExecuteRequest, admission: Admission, amounts: { first: number; most: number }): Promise<Hold> {
  await ledger.reserve(req.key, req.requestId, amounts.first);
  return new Hold(ledger, req, admission.cost, amounts.first, amounts.most);
}
