/**
 * The plugin contract (design: "The plugin contract"). A plugin is a declarative object plus
 * handlers; the registry reads these shapes, validates them all at boot and freezes them.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { CostRule, Units } from '../credits/cost.js';
import type { Engines } from '../engines/types.js';
import type { JobItemOutcome, StepsOf } from './job-step-shapes.js';

/** Where an entry is visible: `public` in v2 discovery, `legacy` only through the v1 table (spec §9.1). */
export type Visibility = 'public' | 'legacy';

/** Minimal structured logger handed to plugins (pino-compatible subset). */
export interface PluginLogger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** Lets a handler report what it produced; the cost rule turns units into credits. */
export interface UsageRecorder {
  /** Adds `n` of `unit` (e.g. `add('reviews', 10)`, `add('output_bytes', size)`). */
  add(unit: string, n: number): void;
  /** The units reported so far. */
  readonly units: Units;
}

/**
 * The type of a setting: parsed and checked at boot, a bad value stops boot naming the variable.
 * `secret` is a string that is never logged or shown. A setting without a type is a string.
 */
export type ConfigType = 'string' | 'integer' | 'number' | 'boolean' | 'url' | 'secret';

/** One configuration value a plugin reads from the environment. */
export interface ConfigField {
  /** Environment variable; derived as `<PLUGIN_ID>_<FIELD_IN_SNAKE_CASE>` when omitted. */
  env?: string;
  /** Human description for the README configuration table. */
  description: string;
  /** How the value is parsed and checked (default `string`). */
  type?: ConfigType;
  /** Used when the variable is unset (a string, or a value of the setting's type). */
  default?: string | number | boolean;
  /** Bounds of an `integer` or `number` setting. */
  min?: number;
  max?: number;
  /** A secret is never logged or shown by discovery (implied by `type: 'secret'`). */
  secret?: boolean;
  /** Without a required value the plugin is *not configured* (spec: `Service not configured`). */
  required?: boolean;
}

/** The value type of one setting, from its declared `type`. */
export type ConfigValue<F extends ConfigField> = F extends { type: 'integer' | 'number' }
  ? number
  : F extends { type: 'boolean' }
    ? boolean
    : string;

/**
 * The resolved configuration values of a plugin, keyed like its `config` declaration: typed
 * settings arrive parsed (`integer` → number, `boolean` → boolean), untyped ones as strings, and a
 * setting with neither a value nor a default is `undefined`.
 */
export type ResolvedConfig<C extends Record<string, ConfigField>> = {
  [K in keyof C]: C[K] extends { default: string | number | boolean } ? ConfigValue<C[K]> : ConfigValue<C[K]> | undefined;
};

/**
 * The configuration a handler sees: as `ResolvedConfig`, and a `required` setting is present too,
 * since a plugin missing one is not configured and its handlers never run (`setup` still runs,
 * so it keeps the wider type).
 */
export type RunConfig<C extends Record<string, ConfigField>> = string extends keyof C
  ? ResolvedConfig<C> // no declaration known (the executor's generic view): unchanged
  : { [K in keyof C]: C[K] extends { required: true } ? ConfigValue<C[K]> : ResolvedConfig<C>[K] };

/** What `setup` receives: configuration and engines, but no HTTP, ledger or container. */
export interface SetupContext<C extends Record<string, ConfigField> = Record<string, ConfigField>> {
  config: ResolvedConfig<C>;
  engines: Engines;
  log: PluginLogger;
}

/** What an endpoint handler receives (design principle 6: a narrow context). */
export interface RunContext<S = unknown, C extends Record<string, ConfigField> = Record<string, ConfigField>> {
  config: RunConfig<C>;
  /** Whatever the plugin's `setup` returned. */
  state: S;
  engines: Engines;
  log: PluginLogger;
  /** Aborted when the client goes away, the server shuts down or the call times out. */
  signal: AbortSignal;
  usage: UsageRecorder;
  /** The request id, for correlating upstream calls in logs. */
  requestId: string;
  /** The id of the plugin whose endpoint runs (names the provider in messages and logs). */
  provider: string;
  /**
   * An opaque id of the calling API key (never the key itself), for engines that share work
   * fairly between callers (e.g. the JavaScript workers).
   */
  caller?: string;
  /**
   * Grows the call's credit hold to the price of `units` the handler has measured it will
   * produce (e.g. `{ minutes: 12 }` once a recording is probed), before its costly work and up to
   * the cost rule's maximum. Fails with the 403 a reservation gives when the key cannot cover it;
   * nothing is charged then. Needed only where the cost rule holds less than its maximum up front
   * (`CostRule.initial`): the charge never exceeds what is held. In a nested `call` (and a job's
   * step) it grows the outer call's (the item's) hold by this capability's price for those units.
   */
  reserveFor(units: Record<string, number>): Promise<void>;
  /** Stores the provider's raw payload, returned in `meta.native` when `options.include_native` is set. */
  setNative(payload: unknown): void;
  /**
   * Runs another capability as part of this call (e.g. web search scraping its top results through
   * `scrape_page`): that capability's providers in order with fallback, its input and output
   * checks and the caller's key policy apply. Its base price is not charged (the calling
   * endpoint's own cost rule prices the call, so report units for what it did), but what it holds
   * for measured work (`reserveFor`, e.g. OCR pages) is held and charged as part of this call, and
   * its units appear in this call's `usage.units` and usage row. `opts.onMeasured` hears what
   * that capability measures before its costly work (`ctx.measured`), so this call can hold its
   * own price for it first (e.g. 10 per page once `document_pages` has counted the pages, before
   * any is OCRed); what it throws ends the inner call, and this one, before that work.
   */
  call<T = unknown>(capability: string, input: unknown, opts?: CallOptions): Promise<T>;
  /**
   * Tells the capability running this one (`ctx.call` with `onMeasured`) what this call has
   * measured of its input before its costly work, e.g. `{ pages: 40 }` once a document's pages are
   * counted and before any is rendered, so that caller can price it (or refuse) first; rejects
   * with what the caller's hook threw (a 403, a 400). A no-op for a call nobody runs this way.
   */
  measured(units: Units): Promise<void>;
}

/** How `ctx.call` runs another capability. */
export interface CallOptions {
  /** Hears each `ctx.measured(units)` of the inner call, before the work it measured starts. */
  onMeasured?(units: Units): Promise<void>;
}

/** An example call, shown by discovery and run by the contract test against the plugin's fake. */
export interface Example<I = unknown, O = unknown> {
  title: string;
  input: I;
  /** Optional expected output shape (validated against the output schema at boot). */
  output?: O;
}

/**
 * A provider operation `<plugin>.<operation>` (spec §4.10 "provider endpoint"). `C` is the
 * plugin's settings declaration when the endpoint names it in `config`, so `ctx.config` is typed.
 */
export interface EndpointDef<IS extends TSchema = TSchema, OS extends TSchema = TSchema, S = any, C extends Record<string, ConfigField> = Record<string, ConfigField>> {
  operation: string;
  title: string;
  summary: string;
  tags?: string[];
  input: IS;
  output: OS;
  cost: CostRule<Static<IS>>;
  examples?: Example<Static<IS>, Static<OS>>[];
  visibility?: Visibility;
  /** Upper bound on run time before the executor aborts the call (ms). */
  timeoutMs?: number;
  /**
   * Calls of this endpoint one API key may have running at once on an instance; more are
   * answered 429 `BUSY` at once. For endpoints that share a bounded engine queue (browser,
   * LibreOffice, sandboxes), so one key cannot fill it and shut every other key out.
   */
  perKeyConcurrency?: number;
  /** Cross-field checks TypeBox cannot express; return the spec's message to reject. */
  validate?(input: Static<IS>): string | undefined;
  /** The spec's 400 text per top-level field, used when that field is missing or invalid. */
  messages?: Record<string, string>;
  /**
   * The plugin's settings declaration (the same object as the plugin's `config`), named here only
   * so `ctx.config` in `run` is typed from it: an endpoint is declared before its plugin, so
   * without it every setting reads as `string | undefined`. Boot reads the plugin's, not this.
   */
  config?: C;
  run(input: Static<IS>, ctx: RunContext<S, C>): Promise<Static<OS>>;
}

/** A capability: a job that providers may serve (spec §4.10 "capability"). */
export interface CapabilityDef<IS extends TSchema = TSchema, OS extends TSchema = TSchema> {
  id: string;
  title: string;
  summary: string;
  tags?: string[];
  aliases?: string[];
  input: IS;
  /**
   * The input accepted when the capability runs as a job, where it may ask for more than one
   * call can (a crawl of 10,000 pages instead of 100); `input` when omitted.
   */
  jobInput?: TSchema;
  /** The 400 text per top-level field of `jobInput`, where it differs from `messages`. */
  jobMessages?: Record<string, string>;
  /**
   * Builds the synchronous output from a finished job's items (listed order), for lanes that answer
   * a call that ran as a job in the capability's own shape (MCP); without it the items fill the
   * output's one list. The capability owns its summary fields, so the job engine names none.
   */
  jobOutput?(input: Static<IS>, items: JobItemOutcome[]): Record<string, unknown>;
  /** Output contract every provider mapping must meet; omit for free-form outputs. */
  output?: OS;
  /** What the caller pays for a capability run, whichever provider serves it. */
  cost: CostRule<Static<IS>>;
  visibility?: Visibility;
  /** Cross-field checks TypeBox cannot express; return the spec's message to reject. */
  validate?(input: Static<IS>): string | undefined;
  /** The spec's 400 text per top-level field, used when that field is missing or invalid. */
  messages?: Record<string, string>;
  examples?: Example<Static<IS>, Static<OS>>[];
}

/** How a provider serves a capability through one of its endpoints. */
export interface Implementation {
  capability: string;
  /** Operation name of one of this plugin's endpoints. */
  endpoint: string;
  /** Capability input → endpoint input (identity when omitted). */
  mapInput?(input: any): any;
  /** Endpoint output → capability output (identity when omitted). */
  mapOutput?(output: any, input: any): any;
  /**
   * The stepwise form jobs use to run this capability item by item (crawl, batch); without it a
   * job runs the endpoint once.
   */
  steps?: StepsOf<any, RunContext<any>>;
}

/** A provider or capability plugin as exported by `plugins/<id>/index.ts`. */
export interface PluginDef<S = any, C extends Record<string, ConfigField> = Record<string, ConfigField>> {
  id: string;
  apiVersion: 1;
  title: string;
  summary: string;
  tags?: string[];
  /** Service-managed: runs on this machine, needs no key, reports its id as the provider. */
  managed?: boolean;
  config?: C;
  capabilities?: CapabilityDef<any, any>[];
  endpoints?: EndpointDef<any, any, S, any>[];
  implements?: Implementation[];
  /** Builds plugin state at boot (clients, pools). Must not throw for a missing key. */
  setup?(ctx: SetupContext<C>): Promise<S> | S;
  close?(state: S): Promise<void> | void;
}

/** A plugin entry in `plugins.config.ts`: a lazy import so listing a plugin costs nothing until boot. */
export type PluginLoader = () => Promise<{ default: PluginDef }>;
