/**
 * One provider's turn in the run stage: maps the input for it, checks the URLs a third-party
 * provider will fetch, runs its handler within the endpoint's time limit and the caller's signal,
 * then runs the call's one output check (made when the registry was built).
 */
import type { SsrfGuard } from '../engines/http/guard.js';
import { addUnits, type Units } from '../credits/cost.js';
import type { CallOptions, RunContext, UsageRecorder } from '../plugin/types.js';
import { usageRecorder } from '../plugin/usage-recorder.js';
import { deadline } from '../util/deadline.js';
import { InternalError, ServiceError, UpstreamError } from '../errors.js';
import { guardProviderUrls } from './provider-urls.js';
import type { Attempt, ExecuteRequest, TurnContext } from './request.js';
import { settleDecodedFields, withDecodedFields } from './decoded-fields.js';

const DEFAULT_TIMEOUT_MS = 120_000;

/** What a provider's turn produced, checked and mapped for the caller. */
export interface ProviderAnswer {
  data: unknown;
  units: Units;
  native?: unknown;
}

/**
 * The handler's usage recorder, whose `units` also list what its served inner calls were charged
 * for (a batch reads the OCR pages its scrapes paid for to report its `creditUsage`); the price
 * of the call itself is taken from the handler's own units only.
 */
function withInnerUnits(own: UsageRecorder, turn: TurnContext): UsageRecorder {
  return {
    add: (unit, n) => own.add(unit, n),
    get units() {
      return addUnits(own.units, turn.innerUnits());
    },
  };
}

/** Runs `attempt` for `req`; throws what the provider's failure maps to. */
export async function callProvider(req: ExecuteRequest, attempt: Attempt, turn: TurnContext): Promise<ProviderAnswer> {
  const { endpoint, binding } = attempt;
  const input = binding?.impl.mapInput ? binding.impl.mapInput(req.input) : req.input;
  // Decoded file fields are checked as the strings they stand for (decoded-fields.ts); one the
  // provider's schema reads as text is read back first, without blocking the thread.
  if (binding) await settleDecodedFields(endpoint.input, input);
  if (binding && !withDecodedFields(endpoint.input, input, () => endpoint.input.Check(input))) {
    const e = endpoint.input.Errors(input).First();
    throw new InternalError(undefined, { cause: new Error(`${endpoint.id}: mapped input invalid at ${e?.path}: ${e?.message}`) });
  }
  // A third-party provider fetches URLs where our connect-time guard cannot see: check them here.
  const guard = endpoint.plugin.def.managed ? undefined : (turn.engines.http as { guard?: SsrfGuard }).guard;
  if (guard) await guardProviderUrls(guard, input);
  const units: Units = {};
  let native: unknown;
  // Fired by the caller going away or by the endpoint's time limit.
  const limit = deadline(req.signal, endpoint.def.timeoutMs ?? DEFAULT_TIMEOUT_MS, () => new Error('time limit reached'));
  const ctx: RunContext<unknown> = {
    config: endpoint.plugin.config,
    state: endpoint.plugin.state,
    engines: turn.engines,
    log: req.log,
    // Made when the handler first looks (see deadline.ts).
    get signal() {
      return limit.signal;
    },
    requestId: req.requestId,
    provider: endpoint.plugin.id,
    caller: req.key.id,
    usage: withInnerUnits(usageRecorder(units), turn),
    reserveFor: (wanted) => turn.reserveFor(wanted),
    setNative(payload) {
      native = payload;
    },
    call: <T>(capability: string, input: unknown, opts?: CallOptions) => turn.call(capability, input, limit.signal, opts) as Promise<T>,
    measured: (units) => turn.measured(units),
  };
  let output: unknown;
  try {
    output = await limit.race(endpoint.def.run(input as never, ctx));
  } catch (err) {
    if (limit.timedOut && !(err instanceof ServiceError)) throw new UpstreamError(`The ${endpoint.plugin.id} service timed out.`, { cause: err });
    throw err;
  } finally {
    limit.end();
  }
  return { data: attempt.checkOutput(output, req.input), units, native };
}
