/**
 * One item of a stepwise job: run its step, price it, grow its hold to the price, and hand it to
 * the turn's group commit (item-recorder.ts) with its charge. A failed step is free; an item
 * recorded by someone else meanwhile gets this charge back.
 */
import type { KeyRecord } from '../keys/types.js';
import type { ProviderBinding } from '../registry/types.js';
import type { JobStepResult } from '../plugin/job-steps.js';
import { isCreditAmount } from '../credits/cost.js';
import { InsufficientCreditsError, toServiceError } from '../errors.js';
import type { JobRecord } from './types.js';
import type { HeldItem, RunnerDeps, Stop } from './runner-deps.js';
import type { ItemRecorder } from './item-recorder.js';
import type { ItemHolds } from './item-holds.js';
import { requestIdOf } from './request-ids.js';
import { stepContext } from './step-context.js';
import { Hold } from '../execution/hold.js';

const DEFAULT_ITEM_TIMEOUT_MS = 120_000;

/** What one item's run needs from its turn. */
export interface ItemStepEnv {
  d: RunnerDeps;
  holds: ItemHolds;
  job: JobRecord;
  key: KeyRecord;
  binding: ProviderBinding;
  signal: AbortSignal;
  why: () => Stop | undefined;
  recorder: ItemRecorder;
}

/**
 * Runs, prices, charges and records one item; calls `stepped` once its step has returned (the
 * next item may start). Throws `InsufficientCreditsError` when its price cannot be held.
 */
export async function runItem(env: ItemStepEnv, { item, prior, hold }: HeldItem, stepped: () => void): Promise<void> {
  const { d, job, key, binding, signal, why, recorder } = env;
  const { store, ledger } = d;
  const requestId = requestIdOf(job.id, item);
  const cost = d.registry.capability(job.target)!.def.cost;
  // The item's hold: grown by the step to its own price (`ctx.reserveFor`, within the job's most)
  // and by what its inner calls measure; an item already charged runs them free.
  const most = cost.reserve(job.input);
  const held = new Hold(ledger, { key, requestId, input: job.input }, cost, hold, isCreditAmount(most) ? Math.max(most, hold) : hold);
  const scope = prior === 0 ? held : undefined;
  /** Ends growth, then gives back whatever the ledger holds for the item. */
  const releaseHeld = async () => {
    await held.close();
    if (held.amount > 0) await ledger.release(requestId);
  };
  let out: JobStepResult;
  try {
    const limit = AbortSignal.any([signal, AbortSignal.timeout(binding.endpoint.def.timeoutMs ?? DEFAULT_ITEM_TIMEOUT_MS)]);
    out = await binding.impl.steps!.run(job.input, { key: item.key, data: item.data }, stepContext(d, job, key, binding, requestId, limit, scope));
  } catch (err) {
    stepped();
    await releaseHeld();
    if (why()) {
      await store.items.unclaim([item.id]);
      return;
    }
    // The step could not hold its own price: the key is out of credits, as when the hold before
    // the step is refused (the turn hands the item back and ends the job).
    if (err instanceof InsufficientCreditsError) throw err;
    const e = toServiceError(err);
    const result = { key: item.key, error: { code: e.code, message: e.message } };
    if (await recorder.add({ id: item.id, status: 'failed', result, credits: 0 })) d.emit(job, 'job.page', result);
    return;
  }
  stepped();
  // Inner calls left running by a step that did not wait for them grow nothing from here on.
  await held.close();
  const more = out.more ?? [];
  if (out.result === undefined) {
    if (held.amount > 0) await ledger.release(requestId);
    await recorder.add({ id: item.id, status: 'skipped', credits: 0 }, more);
    return;
  }
  const priced = out.units && Object.keys(out.units).length > 0 ? cost.settle(job.input, out.units) : 0;
  const price = isCreditAmount(priced) ? priced : 0;
  // The item's own price plus what its served inner calls measured (each within what it held).
  const total = price + held.innerCharge;
  let credits = prior;
  if (prior === 0 && total > 0) {
    try {
      if (held.amount === 0) await ledger.reserve(key, requestId, total);
      else if (total > held.amount) await ledger.extend(key, requestId, total - held.amount);
    } catch (err) {
      if (held.amount > 0) await ledger.release(requestId);
      throw err;
    }
    if (price > 0) env.holds.remember(job.id, price);
    credits = total;
  } else if (held.amount > 0) await ledger.release(requestId);
  // Charged by the recorder, with its batch, before the batch is recorded (and given back by it
  // when the item turns out not to be this claim's).
  const charge = credits > prior ? { requestId, amount: credits, target: job.target, itemKey: item.key } : undefined;
  if (!(await recorder.add({ id: item.id, status: out.failed === true ? 'failed' : 'done', result: out.result, credits }, more, charge))) return;
  d.emit(job, 'job.page', out.result);
}
