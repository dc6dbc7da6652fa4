/**
 * The helpers plugin authors call. They only return their argument with its types pinned: the
 * registry does all checking at boot, so importing a plugin does nothing (design principle 1).
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { CapabilityDef, ConfigField, EndpointDef, Implementation, PluginDef } from './types.js';

/** Declares a plugin; export its result as the default of `plugins/<id>/index.ts`. */
export function definePlugin<S = undefined, C extends Record<string, ConfigField> = Record<string, ConfigField>>(
  def: PluginDef<S, C>,
): PluginDef<S, C> {
  return def;
}

/** Declares one provider operation; its id `<plugin>.<operation>` is derived by the registry. */
export function defineEndpoint<IS extends TSchema, OS extends TSchema, S = any, C extends Record<string, ConfigField> = Record<string, ConfigField>>(
  def: EndpointDef<IS, OS, S, C>,
): EndpointDef<IS, OS, S, C> {
  return def;
}

/** Declares a capability (an extension point providers implement). */
export function defineCapability<IS extends TSchema, OS extends TSchema = TSchema>(
  def: CapabilityDef<IS, OS>,
): CapabilityDef<IS, OS> {
  return def;
}

/** Mappings between a capability's shapes and an endpoint's, typed from their schemas. */
export interface TypedMappings<CI extends TSchema, CO extends TSchema, EI extends TSchema, EO extends TSchema> {
  /** Capability input → endpoint input (identity when omitted). */
  mapInput?(input: Static<CI>): Static<EI>;
  /** Endpoint output → capability output (identity when omitted). */
  mapOutput?(output: Static<EO>, input: Static<CI>): Static<CO>;
}

/**
 * Declares that this plugin serves a capability through one of its endpoints. The typed form
 * takes the capability's declaration (exported by the catalogue, `core/catalogue.ts`) and the endpoint's, so a mapping that
 * reads or writes a field the schemas do not have fails `tsc`; the plain form (ids and untyped
 * mappers, as written against `apiVersion: 1`) keeps working.
 */
export function implement(def: Implementation): Implementation;
export function implement<CI extends TSchema, CO extends TSchema, EI extends TSchema, EO extends TSchema>(
  capability: CapabilityDef<CI, CO>,
  endpoint: EndpointDef<EI, EO, any, any>,
  maps?: TypedMappings<CI, CO, EI, EO>,
): Implementation;
export function implement(a: Implementation | CapabilityDef<any, any>, endpoint?: EndpointDef<any, any, any, any>, maps: TypedMappings<any, any, any, any> = {}): Implementation {
  if (!endpoint) return a as Implementation;
  return { capability: (a as CapabilityDef<any, any>).id, endpoint: endpoint.operation, mapInput: maps.mapInput, mapOutput: maps.mapOutput };
}
