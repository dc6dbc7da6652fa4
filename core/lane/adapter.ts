/**
 * The one lane adapter (issue 29; design: "every lane turns a request into an executor call
 * through one adapter"). v1, v2, MCP and the jobs worker hand it a parsed request; it resolves the
 * target, applies the lane's visibility rule, tells the call's record what it learns, calls the
 * executor with the key, provider choice and signal, and turns the executor's result into the
 * fields every lane answers with. Lanes keep their parsing and their error serialiser.
 */
import type { Executor, ExecuteRequest, ExecuteResult } from '../execution/executor.js';
import type { Registry } from '../registry/registry.js';
import type { ResolvedTarget } from '../registry/types.js';
import { NotConfiguredError, NotFoundError } from '../errors.js';
import { offeredIn, type Lane, type LaneTables } from '../policy/visibility.js';
import type { LaneAnswer, LaneCall } from './types.js';

/** Runs one lane's calls through the executor. */
export class LaneAdapter {
  constructor(
    readonly lane: Lane,
    private readonly registry: Registry,
    // Read at call time, not bound: the metrics observer may wrap `execute` after boot.
    private readonly executor: Pick<Executor, 'execute'>,
    private readonly tables?: LaneTables,
  ) {}

  /**
   * The target a call names, as this lane may run it; throws what the lane answers otherwise:
   * a v1 row whose target this deployment lacks is `Service not configured` (its plugin may come
   * later), anything else unknown or hidden in the lane is `Unknown <type>: <id>`.
   */
  target(call: Pick<LaneCall, 'type' | 'id' | 'resolved'>): ResolvedTarget {
    const target = 'resolved' in call ? call.resolved : this.registry.resolve(call.type, call.id);
    if (!target && this.lane === 'v1') throw new NotConfiguredError();
    if (!target || !offeredIn(this.lane, target, this.tables)) throw new NotFoundError(`Unknown ${call.type}: ${call.id}`);
    return target;
  }

  /** Runs the call; throws the catalogue error the lane serialises. */
  async run(call: LaneCall): Promise<LaneAnswer> {
    call.record?.target(call.type, call.id);
    const target = this.target(call);
    const id = target.type === 'capability' ? target.capability.id : target.endpoint.id;
    call.record?.target(call.type, id);
    const record = call.record;
    const req: ExecuteRequest = {
      requestId: call.requestId,
      key: call.key,
      target,
      provider: call.provider,
      input: call.input,
      includeNative: call.includeNative,
      signal: call.signal,
      log: call.log,
      // In the literal (not added afterwards) so every request has the same shape.
      onAttempt: record ? (p: string) => record.attempt(p) : undefined,
    };
    const result = await this.executor.execute(req);
    record?.served(result);
    return answerOf(call, id, result);
  }
}

/** The executor's result as lanes answer it. */
function answerOf(call: LaneCall, id: string, result: ExecuteResult): LaneAnswer {
  const served: LaneAnswer['served'] = { provider: result.provider, credits: result.credits };
  if (result.fallbacks.length > 0) served.fallbacks = result.fallbacks;
  const answer: LaneAnswer = { type: call.type, id, data: result.data, served, units: result.units };
  if (call.includeNative) answer.native = result.native ?? null;
  return answer;
}
