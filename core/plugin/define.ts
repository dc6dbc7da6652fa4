/**
 * The helpers plugin authors call. They only return their argument with its types pinned: the
 * registry does all checking at boot, so importing a plugin does nothing (design principle 1).
 */
import type { TSchema } from '@sinclair/typebox';
import type { CapabilityDef, ConfigField, EndpointDef, Implementation, PluginDef } from './types.js';

/** Declares a plugin; export its result as the default of `plugins/<id>/index.ts`. */
export function definePlugin<S = undefined, C extends Record<string, ConfigField> = Record<string, ConfigField>>(
  def: PluginDef<S, C>,
): PluginDef<S, C> {
  return def;
}

/** Declares one provider operation; its id `<plugin>.<operation>` is derived by the registry. */
export function defineEndpoint<IS extends TSchema, OS extends TSchema, S = any>(
  def: EndpointDef<IS, OS, S>,
): EndpointDef<IS, OS, S> {
  return def;
}

/** Declares a capability (an extension point providers implement). */
export function defineCapability<IS extends TSchema, OS extends TSchema = TSchema>(
  def: CapabilityDef<IS, OS>,
): CapabilityDef<IS, OS> {
  return def;
}

/** Declares that this plugin serves a capability through one of its endpoints. */
export function implement(def: Implementation): Implementation {
  return def;
}
