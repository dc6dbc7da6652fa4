/**
 * One item of a stepwise job: run its step, price it, grow its hold to the price, and hand it to
 * the turn's group commit (item-recorder.ts) with its charge. A failed step is free; an item
 * recorded by someone else meanwhile gets this charge back.
 */
import type { KeyRecord } from '../keys/types.js';
import type { ProviderBinding } from '../registry/types.js';
import type { JobStepResult } from '../plugin/job-steps.js';
import { isCreditAmount } from '../credits/cost.js';
import { toServiceError } from '../errors.js';
import type { JobRecord } from './types.js';
import type { HeldItem, RunnerDeps, Stop } from './runner-deps.js';
import type { ItemRecorder } from './item-recorder.js';
import type { ItemHolds } from './item-holds.js';
import { requestIdOf } from './request-ids.js';
import { stepContext } from './step-context.js';

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
  let out: JobStepResult;
  try {
    const limit = AbortSignal.any([signal, AbortSignal.timeout(binding.endpoint.def.timeoutMs ?? DEFAULT_ITEM_TIMEOUT_MS)]);
    out = await binding.impl.steps!.run(job.input, { key: item.key, data: item.data }, stepContext(d, job, key, binding, requestId, limit));
  } catch (err) {
    stepped();
    if (hold > 0) await ledger.release(requestId);
    if (why()) {
      await store.items.unclaim([item.id]);
      return;
    }
    const e = toServiceError(err);
    const result = { key: item.key, error: { code: e.code, message: e.message } };
    if (await recorder.add({ id: item.id, status: 'failed', result, credits: 0 })) d.emit(job, 'job.page', result);
    return;
  }
  stepped();
  const more = out.more ?? [];
  if (out.result === undefined) {
    if (hold > 0) await ledger.release(requestId);
    await recorder.add({ id: item.id, status: 'skipped', credits: 0 }, more);
    return;
  }
  const priced = out.units && Object.keys(out.units).length > 0 ? cost.settle(job.input, out.units) : 0;
  const price = isCreditAmount(priced) ? priced : 0;
  let credits = prior;
  if (prior === 0 && price > 0) {
    try {
      if (hold === 0) await ledger.reserve(key, requestId, price);
      else if (price > hold) await ledger.extend(key, requestId, price - hold);
    } catch (err) {
      if (hold > 0) await ledger.release(requestId);
      throw err;
    }
    env.holds.remember(job.id, price);
    credits = price;
  } else if (hold > 0) await ledger.release(requestId);
  // Charged by the recorder, with its batch, before the batch is recorded (and given back by it
  // when the item turns out not to be this claim's).
  const charge = credits > prior ? { requestId, amount: credits, target: job.target, itemKey: item.key } : undefined;
  if (!(await recorder.add({ id: item.id, status: out.failed === true ? 'failed' : 'done', result: out.result, credits }, more, charge))) return;
  d.emit(job, 'job.page', out.result);
}
