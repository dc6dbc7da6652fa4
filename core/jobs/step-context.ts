/**
 * The provider a stepwise job's steps run on, and the run context each step gets: the job's key,
 * the provider's config and state, and the turn's abort signal.
 */
import type { KeyRecord } from '../keys/types.js';
import type { Registry } from '../registry/registry.js';
import type { ProviderBinding } from '../registry/types.js';
import type { CallOptions, RunContext } from '../plugin/types.js';
import type { HoldScope } from '../execution/hold.js';
import { usageRecorder } from '../plugin/usage-recorder.js';
import { ServiceError } from '../errors.js';
import type { JobRecord } from './types.js';
import type { RunnerDeps } from './runner-deps.js';

/** The provider whose steps run `job`. */
export function stepBinding(registry: Registry, job: JobRecord): ProviderBinding {
  const cap = registry.capability(job.target);
  const b = cap?.providers.find((p) => p.plugin.id === job.provider && p.impl.steps);
  if (!b) throw new ServiceError('NOT_CONFIGURED', 'Service not configured. Please contact support.');
  return b;
}

/**
 * The provider's run context for a job's step, bound to the job's key and signal. `hold` is the
 * item's credit hold: the step grows it to the item's own price (`ctx.reserveFor`) before its
 * costly work, and the capabilities it runs (`ctx.call`) grow it by the work they measure
 * (doc_text's OCR pages) and are owed to it, as in a synchronous call; without it (the seed, an
 * item already charged) both are no-ops and the inner calls run free.
 */
export function stepContext(d: Pick<RunnerDeps, 'log' | 'engines' | 'executor'>, job: JobRecord, key: KeyRecord, b: ProviderBinding, requestId: string, signal: AbortSignal, hold?: HoldScope): RunContext<unknown> {
  const log = d.log.child({ jobId: job.id, provider: b.plugin.id });
  return {
    config: b.plugin.config,
    state: b.plugin.state,
    engines: d.engines,
    log,
    signal,
    requestId,
    provider: b.plugin.id,
    caller: key.id,
    usage: usageRecorder({}),
    reserveFor: hold ? (units) => hold.growTo(units) : async () => {},
    setNative() {},
    call: <T>(capability: string, input: unknown, opts?: CallOptions) => d.executor.callFree({ requestId, key, signal, log }, capability, input, hold, opts) as Promise<T>,
    // A step is run by the job, not by another capability: nobody hears what it measures.
    measured: async () => {},
  };
}
