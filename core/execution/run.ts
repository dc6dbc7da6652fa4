/**
 * The executor's third stage: the admitted providers in order, falling back to the next one when
 * a provider fails in a way another might not (`isFallbackable`), each within the key's share of
 * its endpoint (`perKeyConcurrency`).
 */
import { BusyError, NotConfiguredError, isFallbackable, toServiceError, type ServiceError } from '../errors.js';
import { callProvider, type ProviderAnswer } from './provider-call.js';
import type { Attempt, ExecuteRequest, RunOutcome, TurnContext } from './request.js';

/** How a run reports its providers (a top-level call) or names its capability in logs (a nested one). */
export interface RunOptions {
  /** Told before each provider is tried. */
  onAttempt?(provider: string): void;
  /** Set for a `ctx.call` run: the capability it runs, for the log. */
  nestedIn?: string;
}

/** Runs admitted providers; holds the count of running calls per key and endpoint. */
export class ProviderRun {
  /** Running calls per `<key id> <endpoint id>` of endpoints with a `perKeyConcurrency`. */
  private readonly perKey = new Map<string, number>();

  /** Tries `attempts` in order until one serves; throws the last failure, or the first one that may not fall back. */
  async chain(req: ExecuteRequest, attempts: Attempt[], turn: TurnContext, opts: RunOptions = {}): Promise<RunOutcome> {
    const fallbacks: RunOutcome['fallbacks'] = [];
    let lastError: ServiceError | undefined;
    for (let i = 0; i < attempts.length; i++) {
      const attempt = attempts[i]!;
      const provider = attempt.endpoint.plugin.id;
      opts.onAttempt?.(provider);
      let answer: ProviderAnswer;
      try {
        answer = await this.withinShare(req, attempt, turn);
      } catch (raw) {
        const err = toServiceError(raw);
        lastError = err;
        if (i === attempts.length - 1 || !isFallbackable(err) || req.signal.aborted) throw err;
        if (opts.nestedIn) req.log.warn({ provider, code: err.code, capability: opts.nestedIn }, 'provider failed in a nested call; trying the next one');
        else req.log.warn({ provider, code: err.code, err: raw }, 'provider failed; trying the next one');
        fallbacks.push({ provider, code: err.code });
        continue;
      }
      return { data: answer.data, units: answer.units, native: answer.native, provider, fallbacks };
    }
    throw lastError ?? new NotConfiguredError();
  }

  /** Runs one provider within the key's share of its endpoint (`perKeyConcurrency`). */
  private async withinShare(req: ExecuteRequest, attempt: Attempt, turn: TurnContext): Promise<ProviderAnswer> {
    const endpoint = attempt.endpoint;
    const cap = endpoint.def.perKeyConcurrency;
    if (cap === undefined) return callProvider(req, attempt, turn);
    const slot = `${req.key.id} ${endpoint.id}`;
    const running = this.perKey.get(slot) ?? 0;
    if (running >= cap) throw new BusyError(`This API key already has ${cap} calls of ${endpoint.id} running; retry when one has finished.`);
    this.perKey.set(slot, running + 1);
    try {
      return await callProvider(req, attempt, turn);
    } finally {
      const left = (this.perKey.get(slot) ?? 1) - 1;
      if (left === 0) this.perKey.delete(slot);
      else this.perKey.set(slot, left);
    }
  }
}
