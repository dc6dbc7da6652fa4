/**
 * What the executor takes and gives, and what its stages hand one another. In a file of its own
 * so the stages (admission, hold, run, settle) and their callers import the shapes without
 * importing the executor that composes them (issue 29: hold.ts and executor.ts imported each other).
 */
import type { KeyRecord } from '../keys/types.js';
import type { Engines } from '../engines/types.js';
import type { CostRule, Units } from '../credits/cost.js';
import type { CallOptions, PluginLogger } from '../plugin/types.js';
import type { OutputCheck } from '../registry/output-check.js';
import type { ProviderBinding, RegisteredEndpoint, ResolvedTarget } from '../registry/types.js';

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
  /**
   * What the serving handler reported (pages, reviews, model tokens…), for the usage row, with
   * the units its inner calls were charged for (doc_text's `ocr_pages` in a scrape) added.
   */
  units: Units;
  native?: unknown;
  /** Providers tried before the one that served, with the error code each gave. */
  fallbacks: { provider: string; code: string }[];
}

/** One provider the call may try: an endpoint, reached directly or as a capability's provider. */
export interface Attempt {
  endpoint: RegisteredEndpoint;
  /** Set for a capability call: the mappings of this provider. */
  binding?: ProviderBinding;
  /** The output check made at build time for this way of reaching the endpoint. */
  checkOutput: OutputCheck;
}

/** What admission lets through: the price rule, the target's id, and the providers to try in order. */
export interface Admission {
  cost: CostRule;
  targetId: string;
  attempts: Attempt[];
}

/** What the provider that served produced (before it is priced). */
export interface RunOutcome {
  data: unknown;
  units: Units;
  native?: unknown;
  /** The provider that served. */
  provider: string;
  /** Providers tried before it, with the error code each gave. */
  fallbacks: ExecuteResult['fallbacks'];
}

/** What a provider's turn needs from the call around it. */
export interface TurnContext {
  engines: Engines;
  /**
   * Grows the call's credit hold (`ctx.reserveFor`); in a nested call, grows its caller's hold by
   * this capability's price for the measured units (inner-hold.ts); a no-op in a job's free call.
   */
  reserveFor(units: Units): Promise<void>;
  /** The units the served inner calls of this call were charged for so far (none in a free call). */
  innerUnits(): Units;
  /** Runs another capability inside this call (`ctx.call`), under `signal`. */
  call(capability: string, input: unknown, signal: AbortSignal, opts?: CallOptions): Promise<unknown>;
  /** `ctx.measured`: tells the capability that runs this one in a `ctx.call` (its `onMeasured`). */
  measured(units: Units): Promise<void>;
}
