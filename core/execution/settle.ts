/**
 * The executor's last stage: charge what the served call actually cost (never above the hold) and
 * release the rest, or release the whole hold when the call failed. The provider's answer has
 * already passed its output check in the run stage, where a bad answer still lets the next
 * provider try.
 */
import type { Ledger } from '../credits/ledger.js';
import { addUnits, isCreditAmount, type Units } from '../credits/cost.js';
import type { Admission, ExecuteRequest, ExecuteResult, RunOutcome } from './request.js';

/**
 * The settled charge, never above the reservation. A plugin cost rule that yields no usable
 * amount is a plugin bug: the work was done, so the reserved (quoted) price stands and it is logged.
 */
function chargeFor(req: ExecuteRequest, admission: Admission, ran: RunOutcome, reserved: number): number {
  const computed = admission.cost.settle(req.input, ran.units);
  if (isCreditAmount(computed)) return Math.min(computed, reserved);
  req.log.error({ target: admission.targetId, computed }, 'cost rule returned an unusable amount; charging the reservation');
  return reserved;
}

/**
 * Charges the served call and returns its result: its own price (never above `held`, what its
 * hold came to for its own rule) plus `inner`, what its served inner calls' measured work came to
 * (each never above what it held), in one charge: nothing is charged twice, and the total never
 * exceeds the hold.
 */
export async function settle(ledger: Ledger, req: ExecuteRequest, admission: Admission, held: { own: number; inner: number; innerUnits: Units }, ran: RunOutcome): Promise<ExecuteResult> {
  const charge = chargeFor(req, admission, ran, held.own) + held.inner;
  const credits = await ledger.settle(req.requestId, charge, admission.targetId);
  // The usage row lists what was charged for: the inner calls' units beside the handler's own.
  return { data: ran.data, provider: ran.provider, credits, units: addUnits(ran.units, held.innerUnits), native: ran.native, fallbacks: ran.fallbacks };
}

/** Gives the whole hold back: the call failed (or its charge could not be written). */
export function releaseAll(ledger: Ledger, req: ExecuteRequest): Promise<void> {
  return ledger.release(req.requestId);
}
