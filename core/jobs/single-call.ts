/**
 * A job without steps: one executor call, through the jobs lane's adapter, charged as
 * `/api/v2/run` charges it. A charge of an earlier attempt whose result was lost with its instance
 * is refunded before the call runs again, so the job is never charged twice.
 */
import type { KeyRecord } from '../keys/types.js';
import { toServiceError } from '../errors.js';
import { LaneAdapter } from '../lane/adapter.js';
import type { JobRecord } from './types.js';
import type { RunnerDeps, Stop } from './runner-deps.js';
import type { JobEnds } from './job-ends.js';
import { earlierAttempts, requestIdOf } from './request-ids.js';

/** Runs the job's one call; answers whether to queue the job again. */
export async function runSingleCall(d: RunnerDeps, ends: JobEnds, job: JobRecord, key: KeyRecord, signal: AbortSignal, why: () => Stop | undefined): Promise<boolean> {
  const { store, registry, executor } = d;
  const item = await store.claimCall(job.id, d.settings.leaseSeconds);
  if (!item) {
    // The call is leased by a runner that died (look again once its lease lapses), or its
    // instance died after recording it and before ending the job.
    if ((await store.open(job.id)).running > 0) await d.requeue(job.id, 1);
    else await ends.end(job.id, 'failed', { errorCode: 'INTERNAL', errorMessage: 'The job was interrupted. Please submit it again.' });
    return false;
  }
  const prior = await store.charged(earlierAttempts(job.id, item));
  // A charge whose result was lost with its instance is given back before the call runs again.
  if (prior > 0) await d.ledger.adjust(job.keyId, prior, `job ${job.id}: result lost with a stopped instance; its charge is refunded before the call runs again`);
  // The jobs lane's call goes through the one lane adapter, as every lane's does (issue 29).
  const lane = new LaneAdapter('jobs', registry, executor);
  const target = lane.target({ type: job.type, id: job.target });
  try {
    const r = await lane.run({
      requestId: requestIdOf(job.id, item),
      key,
      type: job.type,
      id: job.target,
      resolved: target,
      provider: job.provider ?? undefined,
      input: job.input,
      signal,
      log: d.log.child({ jobId: job.id }),
    });
    const credits = r.served.credits;
    // Cancelled as the call finished: the call was done and charged, so the job shows it.
    if (!(await ends.end(job.id, 'completed', { data: r.data, credits, done: 1 }, job.webhook !== null))) await store.record(job.id, credits, r.data);
    return false;
  } catch (err) {
    if (why()) {
      await store.items.unclaim([item.id]);
      return why() === 'stopping';
    }
    const e = toServiceError(err);
    await ends.end(job.id, 'failed', { errorCode: e.code, errorMessage: e.message });
    return false;
  }
}
