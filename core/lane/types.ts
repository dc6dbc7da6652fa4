/**
 * What a lane hands the lane adapter and what it gets back (issue 29: one lane adapter). A lane
 * keeps only its own request parsing and its own error serialiser; everything between is here.
 */
import type { KeyRecord } from '../keys/types.js';
import type { PluginLogger } from '../plugin/types.js';
import type { ResolvedTarget } from '../registry/types.js';
import type { Units } from '../credits/cost.js';

/** The call's usage record as the adapter feeds it (the server's `CallRecord` is one). */
export interface CallObserver {
  /** The target the call is for, as named, then by its canonical id once resolved. */
  target(type: 'capability' | 'endpoint', id: string): void;
  /** A provider is about to be tried. */
  attempt(provider: string): void;
  /** The call succeeded. */
  served(result: { provider: string | null; credits: number; units?: Units }): void;
}

/** One request of a lane, turned into a registry call. */
export interface LaneCall {
  requestId: string;
  key: KeyRecord;
  /** The target as the request names it (an alias is fine). */
  type: 'capability' | 'endpoint';
  id: string;
  /**
   * The target when the lane resolved it already (a v1 row at boot, an MCP tool by name):
   * `undefined` means it resolved to nothing. Leave the property out to have the adapter resolve.
   */
  resolved?: ResolvedTarget | undefined;
  /** Only this provider of a capability. */
  provider?: string;
  input: unknown;
  /** Keep the provider's raw payload in the answer. */
  includeNative?: boolean;
  /** Fires when the caller goes away (a hang-up, a cancel, a job stopped). */
  signal: AbortSignal;
  log: PluginLogger;
  /** The call's usage record, when the lane keeps one. */
  record?: CallObserver;
}

/** The fields of an answer that say how the call was served (v2 `meta`, MCP `_meta`). */
export interface Served {
  provider: string | null;
  credits: number;
  /** Providers tried first that failed; present only when there were any. */
  fallbacks?: { provider: string; code: string }[];
}

/** A call's outcome as a lane answers it. */
export interface LaneAnswer {
  type: 'capability' | 'endpoint';
  /** The canonical id of the target (an alias resolved). */
  id: string;
  data: unknown;
  served: Served;
  /** What the handler reported (pages, reviews…), as written to the usage row. */
  units: Units;
  /** The provider's raw payload (null when it has none); only when `includeNative` was asked. */
  native?: unknown;
}
