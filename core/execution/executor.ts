/**
 * The one execution path for every lane (design principle 5), composed of four stages run in
 * this order, each a module that imports none of the others (issue 29, "a straight executor"):
 * admission (policy and input checks, one pass) → hold (credit reservation) → run (providers in
 * order with fallback, each within its time limit, its answer checked once) → settle (charge the
 * actual cost and release the rest), or release everything on failure. The lanes differ only in
 * how they build the request and serialise the result or error.
 */
import type { Ledger } from '../credits/ledger.js';
import type { Engines } from '../engines/types.js';
import type { Registry } from '../registry/registry.js';
import { InternalError, toServiceError } from '../errors.js';
import { admit, admitNested } from './admission.js';
import { holdAmounts, openHold, type Hold, type HoldScope } from './hold.js';
import { InnerHold } from './inner-hold.js';
import { ProviderRun } from './run.js';
import { releaseAll, settle } from './settle.js';
import { Observers, type ExecutionObserver } from './observers.js';
import type { ExecuteRequest, ExecuteResult, TurnContext } from './request.js';
import type { CallOptions } from '../plugin/types.js';

export type { ExecuteRequest, ExecuteResult } from './request.js';
export type { ExecutionObserver, FinishedCall } from './observers.js';

/** How deep `ctx.call` may nest (a capability calling one that calls another…). */
const MAX_NESTING = 3;

const noHold = () => Promise.resolve();

/** Runs registry targets for every lane. */
export class Executor {
  /** Calls between reservation and settle/release; shutdown waits for them before closing the ledger. */
  private active = 0;
  private readonly whenIdle: (() => void)[] = [];
  private readonly providers = new ProviderRun();
  private readonly observers = new Observers();

  constructor(
    private readonly registry: Registry,
    private readonly ledger: Ledger,
    private readonly engines: Engines,
  ) {}

  /** Subscribes `observer` to every call (metrics); returns the unsubscribe. */
  observe(observer: ExecutionObserver): () => void {
    return this.observers.add(observer);
  }

  /** Runs a call; on failure throws a catalogue error (`onAttempt` has named the providers tried). */
  async execute(req: ExecuteRequest): Promise<ExecuteResult> {
    if (!this.observers.any) return this.walk(req, req.onAttempt);
    this.observers.started(req);
    let last: string | undefined;
    const onAttempt = (provider: string) => {
      last = provider;
      req.onAttempt?.(provider);
    };
    try {
      const result = await this.walk(req, onAttempt);
      this.observers.finished({ req, result, provider: result.provider });
      return result;
    } catch (err) {
      this.observers.finished({ req, error: toServiceError(err), provider: last });
      throw err;
    }
  }

  /** admission → hold → run → settle, or release on failure. */
  private async walk(req: ExecuteRequest, onAttempt: ((provider: string) => void) | undefined): Promise<ExecuteResult> {
    const admission = await admit(this.registry, req);
    const amounts = holdAmounts(req, admission);
    this.active += 1;
    let hold: Hold | undefined;
    try {
      hold = await openHold(this.ledger, req, admission, amounts);
      const ran = await this.providers.chain(req, admission.attempts, this.turn(req, hold), { onAttempt });
      await hold.close();
      // Settling is not a provider's turn: a ledger fault here must not start the next provider.
      return await settle(this.ledger, req, admission, { own: hold.ownHeld, inner: hold.innerCharge, innerUnits: hold.innerUnits }, ran);
    } catch (raw) {
      // Growth under way lands in the ledger first, so the release frees all of it.
      await hold?.close();
      await releaseAll(this.ledger, req);
      throw toServiceError(raw);
    } finally {
      this.active -= 1;
      if (this.active === 0) for (const wake of this.whenIdle.splice(0)) wake();
    }
  }

  /**
   * What a provider's turn may ask of the call: its engines, growing the hold it draws on
   * (`scope`: the call's own, or an inner call's share of its caller's), nested calls.
   */
  private turn(req: ExecuteRequest, scope: HoldScope | undefined, onMeasured?: CallOptions['onMeasured']): TurnContext {
    return {
      engines: this.engines,
      reserveFor: scope ? (units) => scope.growTo(units) : noHold,
      innerUnits: () => scope?.innerUnits ?? {},
      call: (capability, input, signal, opts) => this.nested({ ...req, signal }, capability, input, (req.depth ?? 0) + 1, scope, opts?.onMeasured),
      measured: onMeasured ?? noHold,
    };
  }

  /**
   * `ctx.call`: runs a capability inside a call already admitted, with the same key's policy and
   * the providers' fallback; nesting is bounded so plugins cannot loop. It has no hold of its
   * own: the call it runs in pays its base, and the work it measures (`ctx.reserveFor`) grows that
   * call's hold at the inner capability's price and is charged with it (inner-hold.ts). What the
   * inner call reports it measured (`ctx.measured`) goes to its caller's `onMeasured` first.
   */
  private async nested(req: ExecuteRequest, capabilityId: string, input: unknown, depth: number, scope: HoldScope | undefined, onMeasured?: CallOptions['onMeasured']): Promise<unknown> {
    if (depth > MAX_NESTING) throw new InternalError(undefined, { cause: new Error(`ctx.call nested deeper than ${MAX_NESTING} at ${capabilityId}`) });
    const admission = await admitNested(this.registry, req, capabilityId, input);
    const inner = { ...req, input, depth };
    const share = scope && new InnerHold(scope, admission.cost, input);
    const ran = await this.providers.chain(inner, admission.attempts, this.turn(inner, share, onMeasured), { nestedIn: admission.targetId });
    share?.served(ran.units);
    return ran.data;
  }

  /**
   * `ctx.call` for work its caller prices itself (a job's items, issue 25): runs `capabilityId`
   * under `key`'s policy, with the providers' fallback, as a nested call. Its base is free; the
   * work it measures (`ctx.reserveFor`, its own or its inner calls') grows `within`, the item's
   * hold, at the inner capability's price and is owed to it once served, as in a call's
   * `ctx.call` (issue 24). Without `within` (an item already charged by an earlier attempt) it
   * grows nothing and is owed nothing.
   */
  callFree(req: Omit<ExecuteRequest, 'target' | 'input'>, capabilityId: string, input: unknown, within?: HoldScope, opts?: CallOptions): Promise<unknown> {
    return this.nested({ ...req, input } as ExecuteRequest, capabilityId, input, (req.depth ?? 0) + 1, within, opts?.onMeasured);
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
}
