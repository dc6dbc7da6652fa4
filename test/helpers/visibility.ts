/**
 * The visibility the registry gives an endpoint (core/registry/build.ts): its own, else `legacy`
 * when every capability it serves is direct-lane only. Tests that walk plugin declarations use
 * it so an inherited v1-only endpoint is treated as the server treats it.
 */
import type { EndpointDef, PluginDef } from '../../core/plugin/types.js';
import { catalogue } from '../../core/catalogue.js';

/** `legacy` or `public`, and whether the plugin said so itself. */
export function endpointVisibility(plugins: PluginDef[], def: PluginDef, ep: EndpointDef): { visibility: 'public' | 'legacy'; inherited: boolean } {
  if (ep.visibility) return { visibility: ep.visibility, inherited: false };
  const caps = new Map([...catalogue, ...plugins.flatMap((p) => p.capabilities ?? [])].map((c) => [c.id, c]));
  const served = (def.implements ?? []).filter((i) => i.endpoint === ep.operation).map((i) => caps.get(i.capability));
  const legacy = served.length > 0 && served.every((c) => c?.visibility === 'legacy');
  return { visibility: legacy ? 'legacy' : 'public', inherited: legacy };
}
