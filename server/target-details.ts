/**
 * How the discovery operations describe a capability or endpoint to a key, shared by v2 `details`
 * and the MCP lane's `details` (outside both lanes, since no lane imports another).
 */
import type { Access } from '../core/policy/access.js';
import type { RegisteredCapability, RegisteredEndpoint } from '../core/registry/types.js';

/** Lean description of a capability, with its providers as this key sees them (v2 details, MCP details). */
export function describeCapability(access: Access, cap: RegisteredCapability) {
  return {
    type: 'capability',
    id: cap.id,
    title: cap.def.title,
    summary: cap.def.summary,
    tags: cap.def.tags ?? [],
    aliases: cap.def.aliases ?? [],
    input: cap.def.input,
    output: cap.def.output ?? null,
    cost: cap.def.cost.describe,
    providers: cap.providers.map((b) => ({
      id: b.plugin.id,
      endpoint: b.endpoint.id,
      configured: b.plugin.configured,
      allowed: access.provider(cap, b),
    })),
    examples: cap.def.examples ?? [],
  };
}

/** Lean description of a provider endpoint as this key sees it (v2 details, MCP details). */
export function describeEndpoint(access: Access, ep: RegisteredEndpoint) {
  return {
    type: 'endpoint',
    id: ep.id,
    provider: ep.plugin.id,
    title: ep.def.title,
    summary: ep.def.summary,
    tags: ep.def.tags ?? [],
    input: ep.def.input,
    output: ep.def.output,
    cost: ep.def.cost.describe,
    configured: ep.plugin.configured,
    allowed: access.endpoint(ep),
    capabilities: ep.capabilities,
    examples: ep.def.examples ?? [],
  };
}
