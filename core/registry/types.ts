/** The frozen registry built at boot from `plugins.config.ts`. */
import type { TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import type { CapabilityDef, EndpointDef, Implementation, PluginDef, ResolvedConfig } from '../plugin/types.js';
import type { Policy } from '../policy/types.js';
import type { OutputCheck } from './output-check.js';

/** `plugins.config.ts`: which plugins exist, provider order, the deployment default policy. */
export interface ServiceConfig {
  /** Plugin id → lazy import of `plugins/<id>/index.ts`. One line per plugin. */
  plugins: Record<string, () => Promise<{ default: PluginDef<any, any> }>>;
  /** Capability id → providers to try first, in order (the rest follow in listing order). */
  providerOrder?: Record<string, string[]>;
  /** Policy applied when a key's own policy says nothing about a target. */
  defaultPolicy?: Policy;
  /** Plugins listed but switched off for this deployment. */
  disabled?: string[];
}

/** A loaded plugin with its resolved configuration. */
export interface RegisteredPlugin {
  id: string;
  def: PluginDef<any, any>;
  config: ResolvedConfig<any>;
  /** False when a required setting (usually the API key) is missing. */
  configured: boolean;
  /** Environment variables that are missing. */
  missing: string[];
  /** Whatever `setup` returned (undefined for unconfigured plugins). */
  state: unknown;
  endpoints: RegisteredEndpoint[];
}

/** A provider endpoint with compiled validators. */
export interface RegisteredEndpoint {
  id: string;
  plugin: RegisteredPlugin;
  def: EndpointDef<TSchema, TSchema, any>;
  input: TypeCheck<TSchema>;
  output: TypeCheck<TSchema>;
  /** The output check of a direct call, made at build time (output-check.ts). */
  checkOutput: OutputCheck;
  /** Capabilities this endpoint serves. */
  capabilities: string[];
  /**
   * Where it is visible: its own `visibility`, else `legacy` when every capability it serves is
   * direct-lane only (a provider of a v1-only job inherits that), else `public`.
   */
  visibility: 'public' | 'legacy';
}

/** One provider able to serve a capability. */
export interface ProviderBinding {
  plugin: RegisteredPlugin;
  endpoint: RegisteredEndpoint;
  impl: Implementation;
  /** The output check of a capability call through this provider (answer, mapping, capability schema), made at build time. */
  checkOutput: OutputCheck;
}

/** A capability with compiled validators and its ordered providers. */
export interface RegisteredCapability {
  id: string;
  def: CapabilityDef<TSchema, TSchema>;
  input: TypeCheck<TSchema>;
  output: TypeCheck<TSchema> | undefined;
  providers: ProviderBinding[];
}

/** What a v1 path or v2 id resolves to. */
export type ResolvedTarget =
  | { type: 'capability'; capability: RegisteredCapability }
  | { type: 'endpoint'; endpoint: RegisteredEndpoint };
