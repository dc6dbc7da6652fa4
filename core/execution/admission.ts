/**
 * Admission, the executor's first stage: may this key run this target with this input, and which
 * providers may serve it. One pass (issue 29: it used to ask the key's policy, validate, then ask
 * the policy again): the policy is asked once, so a refused key hears 403 before its input is
 * looked at, then the input is checked, then the providers left are those configured.
 */
import { Access } from '../policy/access.js';
import { capabilityAllowed } from '../policy/decide.js';
import type { PluginLogger } from '../plugin/types.js';
import type { Registry } from '../registry/registry.js';
import type { RegisteredCapability } from '../registry/types.js';
import { InputError, InternalError, NotConfiguredError, ProviderNotAllowedError } from '../errors.js';
import { admitInput } from './validate.js';
import type { Admission, Attempt, ExecuteRequest } from './request.js';

/** Admits a call of `req.target`; throws the 4xx/5xx that refuses it. */
export async function admit(registry: Registry, req: ExecuteRequest): Promise<Admission> {
  const { target } = req;
  if (target.type === 'endpoint') {
    const ep = target.endpoint;
    if (!new Access(req.key.policy, registry.defaultPolicy).endpoint(ep)) throw new ProviderNotAllowedError();
    await admitInput(ep.input, req.input, ep.def.messages, ep.def.validate, ep.id, req.log);
    if (!ep.plugin.configured) throw new NotConfiguredError();
    return { cost: ep.def.cost, targetId: ep.id, attempts: [{ endpoint: ep, checkOutput: ep.checkOutput }] };
  }
  const cap = target.capability;
  return { cost: cap.def.cost, targetId: cap.id, attempts: await admitCapability(registry, req, cap, req.input, req.log, req.provider) };
}

/**
 * Admits a capability run inside a call already admitted and paid for (`ctx.call`): the same
 * key's policy and input checks; its price rule goes unused (the caller's rule prices the call).
 */
export async function admitNested(registry: Registry, req: ExecuteRequest, capabilityId: string, input: unknown): Promise<Admission> {
  const cap = registry.capability(capabilityId);
  if (!cap) throw new InternalError(undefined, { cause: new Error(`ctx.call: unknown capability '${capabilityId}'`) });
  return { cost: cap.def.cost, targetId: cap.id, attempts: await admitCapability(registry, req, cap, input, req.log) };
}

/** The providers that may serve `cap` for this key (policy, input checks, configured), in order. */
async function admitCapability(registry: Registry, req: ExecuteRequest, cap: RegisteredCapability, input: unknown, log: PluginLogger, provider?: string): Promise<Attempt[]> {
  let bindings = cap.providers;
  if (provider !== undefined) {
    bindings = bindings.filter((b) => b.plugin.id === provider);
    if (bindings.length === 0) {
      const known = cap.providers.map((b) => b.plugin.id).join(', ') || 'none';
      throw new InputError(`Provider '${provider}' does not serve capability '${cap.id}'. Providers: ${known}.`);
    }
  }
  const allowed = new Access(req.key.policy, registry.defaultPolicy).providers(cap, bindings);
  if (!capabilityAllowed(req.key.policy, registry.defaultPolicy, cap.id, allowed.length, bindings.length)) throw new ProviderNotAllowedError();
  await admitInput(cap.input, input, cap.def.messages, cap.def.validate, cap.id, log);
  const attempts: Attempt[] = [];
  for (const b of allowed) if (b.plugin.configured) attempts.push({ endpoint: b.endpoint, binding: b, checkOutput: b.checkOutput });
  if (attempts.length === 0) throw new NotConfiguredError();
  return attempts;
}
