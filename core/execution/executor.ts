/**
 * The one execution path for both lanes (design principle 5): policy → input validation →
 * credit reservation → provider chain with fallback → output validation → charge the actual
 * cost and release the rest, or release everything on failure. The lanes differ only in how
 * they build the request and serialise the result or error.
 */
import type { KeyRecord } from '../keys/types.js';
import type { Ledger } from '../credits/ledger.js';
import type { Engines } from '../engines/types.js';
import type { PluginLogger, RunContext } from '../plugin/types.js';
import type { Registry } from '../registry/registry.js';
import type { ProviderBinding, RegisteredCapability, RegisteredEndpoint, ResolvedTarget } from '../registry/types.js';
import type { CostRule, Units } from '../credits/cost.js';
import { isCreditAmount } from '../credits/cost.js';
import { Access } from '../policy/access.js';
import { runValidateHook, validateInput } from './validate.js';
import { usageRecorder } from '../plugin/usage-recorder.js';
import { Hold } from './hold.js';
import { deadline } from '../util/deadline.js';
import { guardProviderUrls } from './provider-urls.js';
import type { SsrfGuard } from '../engines/http/guard.js';
import {
  BusyError,
  InputError,
  InternalError,
  NotConfiguredError,
  ProviderNotAllowedError,
  ServiceError,
  UpstreamError,
  isFallbackable,
  toServiceError,
} from '../errors.js';

/** One call as the executor sees it. */
export interface ExecuteRequest {
  requestId: string;
  key: KeyRecord;
  target: ResolvedTarget;
  /** v2 `provider`: pick one provider of a capability. */
  provider?: string;
  input: unknown;
  includeNative?: boolean;
  signal: AbortSignal;
  log: PluginLogger;
  /** Set by the executor for `ctx.call` runs: how deep the nesting is. */
  depth?: number;
  /** Told before each provider is tried, so the caller's record names the provider that failed. */
  onAttempt?(provider: string): void;
}

/** A successful call. */
export interface ExecuteResult {
  data: unknown;
  /** The provider that served the call (null for a capability without providers, e.g. a listing). */
  provider: string | null;
  credits: number;
  /** What the serving handler reported (pages, reviews, model tokens…), for the usage row. */
  units: Units;
  native?: unknown;
  /** Providers tried before the one that served, with the error code each gave. */
  fallbacks: { provider: string; code: string }[];
}

const DEFAULT_TIMEOUT_MS = 120_000;

/** How deep `ctx.call` may nest (a capability calling one that calls another…). */
const MAX_NESTING = 3;

/** Runs registry targets for both lanes. */
export class Executor {
  /** Calls between reservation and settle/release; shutdown waits for them before closing the ledger. */
  private active = 0;
  /** Running calls per `<key id> <endpoint id>` of endpoints with a `perKeyConcurrency`. */
  private readonly perKey = new Map<string, number>();
  private readonly whenIdle: (() => void)[] = [];

  constructor(
    private readonly registry: Registry,
    private readonly ledger: Ledger,
    private readonly engines: Engines,
  ) {}

  /** The cost rule and validation applied for a target. */
  private plan(req: ExecuteRequest): { cost: CostRule; targetId: string; chain: ProviderBinding[] | RegisteredEndpoint } {
    const { target } = req;
    const access = new Access(req.key.policy, this.registry.defaultPolicy);
    if (target.type === 'endpoint') {
      const ep = target.endpoint;
      if (!access.endpoint(ep)) throw new ProviderNotAllowedError();
      validateInput(ep.input, req.input, ep.def.messages);
      runValidateHook(ep.def.validate, req.input, ep.id, req.log);
      if (!ep.plugin.configured) throw new NotConfiguredError();
      return { cost: ep.def.cost, targetId: ep.id, chain: ep };
    }
    const cap = target.capability;
    return { cost: cap.def.cost, targetId: cap.id, chain: this.capabilityChain(access, cap, req.input, req.log, req.provider) };
  }

  /** The providers that may serve `cap` for this key (policy, input checks, configured), in order. */
  private capabilityChain(access: Access, cap: RegisteredCapability, input: unknown, log: PluginLogger, provider?: string): ProviderBinding[] {
    let bindings = cap.providers;
    if (provider !== undefined) {
      bindings = bindings.filter((b) => b.plugin.id === provider);
      if (bindings.length === 0) {
        const known = cap.providers.map((b) => b.plugin.id).join(', ') || 'none';
        throw new InputError(`Provider '${provider}' does not serve capability '${cap.id}'. Providers: ${known}.`);
      }
    }
    if (!access.capability(cap, bindings)) throw new ProviderNotAllowedError();
    validateInput(cap.input, input, cap.def.messages);
    runValidateHook(cap.def.validate, input, cap.id, log);
    const configured = access.providers(cap, bindings).filter((b) => b.plugin.configured);
    if (configured.length === 0) throw new NotConfiguredError();
    return configured;
  }

  /**
   * `ctx.call`: runs a capability inside a call already paid for (no reservation of its own), with
   * the same key's policy and the providers' fallback; nesting is bounded so plugins cannot loop.
   */
  private async nestedCall(req: ExecuteRequest, capabilityId: string, input: unknown, depth: number): Promise<unknown> {
    if (depth > MAX_NESTING) throw new InternalError(undefined, { cause: new Error(`ctx.call nested deeper than ${MAX_NESTING} at ${capabilityId}`) });
    const cap = this.registry.capability(capabilityId);
    if (!cap) throw new InternalError(undefined, { cause: new Error(`ctx.call: unknown capability '${capabilityId}'`) });
    const chain = this.capabilityChain(new Access(req.key.policy, this.registry.defaultPolicy), cap, input, req.log);
    const inner = { ...req, input, depth };
    let lastError: ServiceError | undefined;
    for (const [i, binding] of chain.entries()) {
      try {
        return (await this.runEndpoint(inner, binding.endpoint, binding)).data;
      } catch (raw) {
        lastError = toServiceError(raw);
        if (i === chain.length - 1 || !isFallbackable(lastError) || req.signal.aborted) throw lastError;
        req.log.warn({ provider: binding.plugin.id, code: lastError.code, capability: cap.id }, 'provider failed in a nested call; trying the next one');
      }
    }
    throw lastError ?? new NotConfiguredError();
  }

  /**
   * `ctx.call` for work its caller prices itself (a job's items, issue 25): runs `capabilityId`
   * free of charge under `key`'s policy, with the providers' fallback, as a nested call.
   */
  callFree(req: Omit<ExecuteRequest, 'target' | 'input'>, capabilityId: string, input: unknown): Promise<unknown> {
    return this.nestedCall({ ...req, input } as ExecuteRequest, capabilityId, input, (req.depth ?? 0) + 1);
  }

  /**
   * Resolves once no call holds a reservation (or after `timeoutMs`): a call whose client was cut
   * off at shutdown still releases or settles its credits before the ledger closes.
   */
  async idle(timeoutMs: number): Promise<boolean> {
    if (this.active === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      new Promise<true>((r) => this.whenIdle.push(() => r(true))),
      new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    return done;
  }

  /** Runs a call; on failure throws a catalogue error (`onAttempt` has named the providers tried). */
  async execute(req: ExecuteRequest): Promise<ExecuteResult> {
    const { cost, targetId, chain } = this.plan(req);
    const most = cost.reserve(req.input);
    const first = cost.initial ? Math.min(cost.initial(req.input), most) : most;
    if (!isCreditAmount(most) || !isCreditAmount(first)) throw new InternalError(undefined, { cause: new Error(`bad reservation ${first}/${most} for ${targetId}`) });
    this.active += 1;
    try {
      return await this.reserveAndRun(req, cost, targetId, chain, new Hold(this.ledger, req, cost, first, most));
    } finally {
      this.active -= 1;
      if (this.active === 0) for (const wake of this.whenIdle.splice(0)) wake();
    }
  }

  private async reserveAndRun(req: ExecuteRequest, cost: CostRule, targetId: string, chain: ProviderBinding[] | RegisteredEndpoint, hold: Hold): Promise<ExecuteResult> {
    await this.ledger.reserve(req.key, req.requestId, hold.amount);
    try {
      const fallbacks: ExecuteResult['fallbacks'] = [];
      const bindings: { endpoint: RegisteredEndpoint; binding?: ProviderBinding }[] = Array.isArray(chain)
        ? chain.map((b) => ({ endpoint: b.endpoint, binding: b }))
        : [{ endpoint: chain }];
      let lastError: ServiceError | undefined;
      for (const [i, { endpoint, binding }] of bindings.entries()) {
        req.onAttempt?.(endpoint.plugin.id);
        let attempt: Awaited<ReturnType<Executor['runEndpoint']>>;
        try {
          attempt = await this.runEndpoint(req, endpoint, binding, hold);
        } catch (raw) {
          const err = toServiceError(raw);
          lastError = err;
          const more = i < bindings.length - 1;
          if (!more || !isFallbackable(err) || req.signal.aborted) throw err;
          req.log.warn({ provider: endpoint.plugin.id, code: err.code, err: raw }, 'provider failed; trying the next one');
          fallbacks.push({ provider: endpoint.plugin.id, code: err.code });
          continue;
        }
        // Settling sits outside the provider try: a ledger fault must not start the next provider.
        const credits = await this.ledger.settle(req.requestId, this.chargeFor(cost, req, attempt.units, hold.amount, targetId), targetId);
        return { data: attempt.data, provider: endpoint.plugin.id, credits, units: attempt.units, native: attempt.native, fallbacks };
      }
      throw lastError ?? new NotConfiguredError();
    } catch (raw) {
      await this.ledger.release(req.requestId);
      throw toServiceError(raw);
    }
  }

  /**
   * The settled charge, never above the reservation. A plugin cost rule that yields no usable
   * amount is a plugin bug: the work was done, so the reserved (quoted) price stands and it is logged.
   */
  private chargeFor(cost: CostRule, req: ExecuteRequest, units: Units, reserve: number, targetId: string): number {
    const computed = cost.settle(req.input, units);
    if (isCreditAmount(computed)) return Math.min(computed, reserve);
    req.log.error({ target: targetId, computed }, 'cost rule returned an unusable amount; charging the reservation');
    return reserve;
  }

  /** Runs one endpoint within the key's share of it (`perKeyConcurrency`). */
  private async runEndpoint(req: ExecuteRequest, endpoint: RegisteredEndpoint, binding?: ProviderBinding, hold?: Hold): Promise<{ data: unknown; units: Units; native?: unknown }> {
    const cap = endpoint.def.perKeyConcurrency;
    if (cap === undefined) return this.runEndpointNow(req, endpoint, binding, hold);
    const slot = `${req.key.id} ${endpoint.id}`;
    const running = this.perKey.get(slot) ?? 0;
    if (running >= cap) throw new BusyError(`This API key already has ${cap} calls of ${endpoint.id} running; retry when one has finished.`);
    this.perKey.set(slot, running + 1);
    try {
      return await this.runEndpointNow(req, endpoint, binding, hold);
    } finally {
      const left = (this.perKey.get(slot) ?? 1) - 1;
      if (left === 0) this.perKey.delete(slot);
      else this.perKey.set(slot, left);
    }
  }

  /** `hold`: the call's credit hold, which the handler may grow; none in a nested call (the caller's rule prices it). */
  private async runEndpointNow(req: ExecuteRequest, endpoint: RegisteredEndpoint, binding?: ProviderBinding, hold?: Hold): Promise<{ data: unknown; units: Units; native?: unknown }> {
    const input = binding?.impl.mapInput ? binding.impl.mapInput(req.input) : req.input;
    if (binding && !endpoint.input.Check(input)) {
      const e = endpoint.input.Errors(input).First();
      throw new InternalError(undefined, { cause: new Error(`${endpoint.id}: mapped input invalid at ${e?.path}: ${e?.message}`) });
    }
    // A third-party provider fetches URLs where our connect-time guard cannot see: check them here.
    const guard = endpoint.plugin.def.managed ? undefined : (this.engines.http as { guard?: SsrfGuard }).guard;
    if (guard) await guardProviderUrls(guard, input);
    const units: Units = {};
    let native: unknown;
    // Fired by the caller going away or by the endpoint's time limit.
    const limit = deadline(req.signal, endpoint.def.timeoutMs ?? DEFAULT_TIMEOUT_MS, () => new Error('time limit reached'));
    const ctx: RunContext<unknown> = {
      config: endpoint.plugin.config,
      state: endpoint.plugin.state,
      engines: this.engines,
      log: req.log,
      // Made when the handler first looks (see deadline.ts).
      get signal() {
        return limit.signal;
      },
      requestId: req.requestId,
      provider: endpoint.plugin.id,
      caller: req.key.id,
      usage: usageRecorder(units),
      reserveFor: (wanted) => (hold ? hold.growTo(wanted) : Promise.resolve()),
      setNative(payload) {
        native = payload;
      },
      call: <T>(capability: string, input: unknown) => this.nestedCall({ ...req, signal: limit.signal }, capability, input, (req.depth ?? 0) + 1) as Promise<T>,
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
    if (!endpoint.output.Check(output)) {
      const e = endpoint.output.Errors(output).First();
      throw new UpstreamError(`Received invalid data structure from ${endpoint.plugin.id} service.`, { cause: new Error(`${e?.path}: ${e?.message}`) });
    }
    let data = output;
    if (binding) {
      data = binding.impl.mapOutput ? binding.impl.mapOutput(output, req.input) : output;
      const capCheck = this.registry.capability(binding.impl.capability)?.output;
      if (capCheck && !capCheck.Check(data)) {
        const e = capCheck.Errors(data).First();
        throw new UpstreamError(`Received invalid data structure from ${endpoint.plugin.id} service.`, { cause: new Error(`capability output ${e?.path}: ${e?.message}`) });
      }
    }
    return { data, units, native };
  }
}
