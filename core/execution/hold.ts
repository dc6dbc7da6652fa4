/**
 * The executor's second stage: the call's credit hold. Reserves what the call may cost before any
 * provider runs (403 when the key cannot cover it), and lets the handler grow it (`ctx.reserveFor`),
 * as the capabilities it runs inside the call (`ctx.call`) grow it too (inner-hold.ts).
 */
import type { Ledger } from '../credits/ledger.js';
import type { CostRule, Units } from '../credits/cost.js';
import { isCreditAmount } from '../credits/cost.js';
import { InnerDebt } from './inner-debt.js';
import { InternalError } from '../errors.js';
import type { Admission, ExecuteRequest } from './request.js';

/**
 * Where a provider's turn takes credits from (`ctx.reserveFor`) and where the inner calls it
 * makes are paid from: the call's own hold, or an inner call's share of it.
 */
export interface HoldScope {
  /** The call's hold every share draws on. */
  readonly root: Hold;
  /** Grows the hold to the price of `wanted` under this scope's cost rule. */
  growTo(wanted: Units): Promise<void>;
  /**
   * Told by a served inner call what its measured work cost (never more than it had held), and
   * the units it was charged for (its own and its inner calls'), for the caller's usage row.
   */
  owe(credits: number, units: Units): void;
  /** The units of the served inner calls charged so far (e.g. doc_text's `ocr_pages`). */
  readonly innerUnits: Units;
}

/** What a hold needs to know of its call: whose credits, under which request id, for which input. */
export type HoldCall = Pick<ExecuteRequest, 'key' | 'requestId' | 'input'>;

/**
 * One call's credit hold: what it reserved up front (`CostRule.initial`, else the rule's
 * maximum), grown by the handler's `ctx.reserveFor(units)` to the price of what it measured,
 * never past the maximum, and by its inner calls' measured work (on top of that maximum: the
 * inner rule bounds it). Every growth is taken one after another, so the amount held is always
 * what the ledger holds; once the call ends (`close`) nothing grows it any more.
 */
export class Hold implements HoldScope {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  /** Credits held for inner calls' measured work. */
  private forInner = 0;
  /** What the inner calls that were served owe: charged with the call's own price. */
  private readonly debt = new InnerDebt();

  constructor(
    private readonly ledger: Ledger,
    private readonly req: HoldCall,
    private readonly cost: CostRule,
    /** Credits held for the call's own price (its rule's, at most `most`). */
    private own: number,
    private readonly most: number,
  ) {}

  get root(): Hold {
    return this;
  }

  /** Credits the ledger holds for the call now. */
  get amount(): number {
    return this.own + this.forInner;
  }

  /** The most the call's own rule may charge: what it holds for itself. */
  get ownHeld(): number {
    return this.own;
  }

  /** What the served inner calls' measured work came to, charged on top of the call's own price. */
  get innerCharge(): number {
    return this.debt.credits;
  }

  get innerUnits(): Units {
    return this.debt.units;
  }

  /** Grows the hold to the price of `wanted` (capped at the rule's maximum); never shrinks it. */
  growTo(wanted: Units): Promise<void> {
    return this.serial(async () => {
      const priced = this.cost.settle(this.req.input, wanted);
      const target = isCreditAmount(priced) ? Math.min(priced, this.most) : this.most;
      if (target <= this.own) return;
      await this.take(target - this.own);
      this.own = target;
    });
  }

  /** Holds `credits` more for an inner call's measured work (called inside `serial`). */
  async takeForInner(credits: number): Promise<void> {
    if (credits <= 0) return;
    await this.take(credits);
    this.forInner += credits;
  }

  owe(credits: number, units: Units): void {
    // An inner call that ends after its caller settled is charged nothing (its caller's answer is gone).
    if (this.closed) return;
    this.debt.add(credits, units);
  }

  /**
   * Runs `step` after every growth asked before it. A growth asked once the call has ended (an
   * inner call left running by a handler that did not wait for it) is refused: the hold is being
   * settled or released, and work it would pay for must not start.
   */
  serial(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(() => {
      if (this.closed) throw new InternalError(undefined, { cause: new Error(`credit hold of ${this.req.requestId} grown after its call ended`) });
      return step();
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Ends growth: resolves once the growth already under way is in the ledger, before settle or release. */
  close(): Promise<void> {
    this.closed = true;
    return this.queue;
  }

  private async take(credits: number): Promise<void> {
    if (this.amount === 0) await this.ledger.reserve(this.req.key, this.req.requestId, credits);
    else await this.ledger.extend(this.req.key, this.req.requestId, credits);
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
