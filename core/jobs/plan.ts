/**
 * What a submitted job will run, decided before the 202 (issue 25: input is validated as on
 * `run`): the target, the key's policy, the job's input checked against the capability's
 * `jobInput` (else its `input`), and the provider chain walked as `run` walks it: the first
 * provider with steps runs the job item by item; one that can serve the call as it is (the input
 * fits the synchronous schema, its mapping accepts the options) makes it a single executor call.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import type { KeyRecord } from '../keys/types.js';
import type { PluginLogger } from '../plugin/types.js';
import type { Registry } from '../registry/registry.js';
import type { ProviderBinding, RegisteredCapability, ResolvedTarget } from '../registry/types.js';
import { Access } from '../policy/access.js';
import { runValidateHook, validateInput } from '../execution/validate.js';
import { InputError, NotConfiguredError, NotFoundError, ProviderNotAllowedError, ServiceError, UnsupportedOptionError, toServiceError } from '../errors.js';

/** A job's request, as the route read it. */
export interface JobRequest {
  type: 'capability' | 'endpoint';
  id: string;
  provider?: string;
  input: unknown;
}

/** How a job runs. */
export interface JobPlan {
  target: ResolvedTarget;
  /** The canonical capability or endpoint id. */
  targetId: string;
  /** The provider whose steps run a stepwise job. */
  binding?: ProviderBinding;
}

const jobChecks = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The compiled `jobInput` of a capability (compiled once), or its synchronous input check. */
function jobCheck(cap: RegisteredCapability): TypeCheck<TSchema> {
  const schema = cap.def.jobInput;
  if (!schema) return cap.input;
  let check = jobChecks.get(schema);
  if (!check) jobChecks.set(schema, (check = TypeCompiler.Compile(schema)));
  return check;
}

/** Resolves and checks a job request; throws the catalogue error `run` would answer. */
export function planJob(registry: Registry, key: KeyRecord, req: JobRequest, log: PluginLogger): JobPlan {
  const target = registry.resolve(req.type, req.id);
  if (!target) throw new NotFoundError(`Unknown ${req.type}: ${req.id}`);
  const access = new Access(key.policy, registry.defaultPolicy);
  if (target.type === 'endpoint') {
    const ep = target.endpoint;
    if (!access.endpoint(ep)) throw new ProviderNotAllowedError();
    validateInput(ep.input, req.input, ep.def.messages);
    runValidateHook(ep.def.validate, req.input, ep.id, log);
    if (!ep.plugin.configured) throw new NotConfiguredError();
    return { target, targetId: ep.id };
  }
  const cap = target.capability;
  let bindings = cap.providers;
  if (req.provider !== undefined) {
    bindings = bindings.filter((b) => b.plugin.id === req.provider);
    if (bindings.length === 0) {
      const known = cap.providers.map((b) => b.plugin.id).join(', ') || 'none';
      throw new InputError(`Provider '${req.provider}' does not serve capability '${cap.id}'. Providers: ${known}.`);
    }
  }
  if (!access.capability(cap, bindings)) throw new ProviderNotAllowedError();
  validateInput(jobCheck(cap), req.input, cap.def.jobMessages ?? cap.def.messages);
  runValidateHook(cap.def.validate, req.input, cap.id, log);
  const configured = access.providers(cap, bindings).filter((b) => b.plugin.configured);
  if (configured.length === 0) throw new NotConfiguredError();
  let refusal: ServiceError | undefined;
  for (const b of configured) {
    if (b.impl.steps) return { target, targetId: cap.id, binding: b };
    if (!cap.input.Check(req.input)) continue;
    try {
      b.impl.mapInput?.(req.input);
    } catch (err) {
      // A provider that cannot honour an option hands the job on, as on `run`.
      const e = toServiceError(err);
      if (e instanceof UnsupportedOptionError) {
        refusal = e;
        continue;
      }
      throw e;
    }
    return { target, targetId: cap.id };
  }
  // No provider can run it: answer what the synchronous call would have.
  validateInput(cap.input, req.input, cap.def.messages);
  throw refusal ?? new NotConfiguredError();
}
