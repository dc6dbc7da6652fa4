/**
 * An inner call's share of its caller's credit hold (issue 24, "price what costs"). A capability
 * run inside another (`ctx.call`) has no hold of its own, but the work it measures (pages it OCRs)
 * costs what it costs when called directly: its `ctx.reserveFor` grows the caller's hold by what
 * its own rule adds for those units over its price for none (the caller's price covers the inner
 * call's base, as it always did), so a key that cannot cover that work is refused (403) before
 * the work starts. Once the inner call is served, what its measured work came to (never more than
 * it held) is owed by its caller, and reaches the call that is charged only when every call in
 * between is served too: a failed inner call, or one whose caller failed, is never charged.
 */
import type { CostRule, Units } from '../credits/cost.js';
import { addUnits, isCreditAmount } from '../credits/cost.js';
import { InternalError } from '../errors.js';
import type { Hold, HoldScope } from './hold.js';
import { InnerDebt } from './inner-debt.js';

export class InnerHold implements HoldScope {
  readonly root: Hold;
  /** Credits this inner call has had the hold grown by. */
  private held = 0;
  /** What its own served inner calls owe, passed on when it is served. */
  private readonly debt = new InnerDebt();

  constructor(
    private readonly parent: HoldScope,
    private readonly cost: CostRule,
    private readonly input: unknown,
  ) {
    this.root = parent.root;
  }

  /** Grows the caller's hold to cover `wanted` at this capability's price; never shrinks it. */
  growTo(wanted: Units): Promise<void> {
    return this.root.serial(async () => {
      const target = this.measured(wanted);
      if (!isCreditAmount(target)) throw new InternalError(undefined, { cause: new Error(`bad inner reservation ${target}`) });
      if (target <= this.held) return;
      await this.root.takeForInner(target - this.held);
      this.held = target;
    });
  }

  get innerUnits(): Units {
    return this.debt.units;
  }

  owe(credits: number, units: Units): void {
    this.debt.add(credits, units);
  }

  /**
   * The inner call was served having reported `units`: its caller owes their price and its inner
   * calls', and its usage row lists the units charged (this call's only when it cost something,
   * so a free inner call's bytes and pages do not pose as the caller's).
   */
  served(units: Units): void {
    const priced = this.measured(units);
    // A rule that yields no usable amount is a plugin bug; the work was done, so what it held stands.
    const own = isCreditAmount(priced) ? Math.min(priced, this.held) : this.held;
    this.parent.owe(own + this.debt.credits, own > 0 ? addUnits(units, this.debt.units) : this.debt.units);
  }

  /** What this capability's rule adds for `units` over its price for none, capped at its maximum. */
  private measured(units: Units): number {
    const none = this.cost.settle(this.input, {});
    const priced = Math.min(this.cost.settle(this.input, units), this.cost.reserve(this.input));
    return Math.max(0, priced - none);
  }
}
