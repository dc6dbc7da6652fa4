/** What a call's served inner calls owe it (see inner-hold.ts): a call's hold and an inner call's share both keep one. */
import { addUnits, type Units } from '../credits/cost.js';

export class InnerDebt {
  /** Credits their measured work came to. */
  credits = 0;
  private charged: Units = {};

  /** A served inner call owes `credits` for `units` (its own and its inner calls'). */
  add(credits: number, units: Units): void {
    this.credits += credits;
    this.charged = addUnits(this.charged, units);
  }

  /** The units charged so far, as a copy. */
  get units(): Units {
    return { ...this.charged };
  }
}
