/**
 * The one answer to "may this key use X" (issue 11: one policy module), for discovery, details and
 * execution alike: built from the key's policy and the deployment default, asked about an
 * endpoint, a capability, or the providers of a capability. The rules themselves are `decide`.
 */
import type { Policy } from './types.js';
import { capabilityAllowed, decide } from './decide.js';
import type { ProviderBinding, RegisteredCapability, RegisteredEndpoint } from '../registry/types.js';

/** What one key may use. */
export class Access {
  constructor(
    private readonly key: Policy | undefined,
    private readonly deployment: Policy | undefined,
  ) {}

  /** May the key call this provider endpoint directly? */
  endpoint(ep: RegisteredEndpoint): boolean {
    return decide(this.key, this.deployment, { endpoint: ep.id, provider: ep.plugin.id });
  }

  /** May the key use this provider of a capability? */
  provider(cap: RegisteredCapability, binding: ProviderBinding): boolean {
    return decide(this.key, this.deployment, { capability: cap.id, endpoint: binding.endpoint.id, provider: binding.plugin.id });
  }

  /** The capability's providers the key may use, in provider order. */
  providers(cap: RegisteredCapability, among: ProviderBinding[] = cap.providers): ProviderBinding[] {
    return among.filter((b) => this.provider(cap, b));
  }

  /** May the key use the capability at all (through `among`, default all its providers)? */
  capability(cap: RegisteredCapability, among: ProviderBinding[] = cap.providers): boolean {
    return capabilityAllowed(this.key, this.deployment, cap.id, this.providers(cap, among).length, among.length);
  }
}
