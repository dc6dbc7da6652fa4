/**
 * Output checks made once, when the registry is built (issue 29: the capability's schema used to
 * be looked up on every call, and a provider answer whose endpoint shares the capability's output
 * schema was checked twice). Each endpoint gets one check for direct calls, each provider binding
 * one for capability calls; the executor runs the one that applies, once per call.
 */
import type { TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { UpstreamError } from '../errors.js';
import type { Implementation } from '../plugin/types.js';

/** Checks a provider's answer and returns what the caller receives; throws the 502 a bad answer gets. */
export type OutputCheck = (output: unknown, input: unknown) => unknown;

function invalid(provider: string, cause: string): UpstreamError {
  return new UpstreamError(`Received invalid data structure from ${provider} service.`, { cause: new Error(cause) });
}

/** The check of a direct endpoint call: the answer against the endpoint's own output schema. */
export function endpointOutputCheck(provider: string, output: TypeCheck<TSchema>): OutputCheck {
  return (answer) => {
    if (output.Check(answer)) return answer;
    const e = output.Errors(answer).First();
    throw invalid(provider, `${e?.path}: ${e?.message}`);
  };
}

/** True when two compiled checks accept exactly the same values (the same generated code). */
function sameCheck(a: TypeCheck<TSchema>, b: TypeCheck<TSchema>): boolean {
  return a === b || a.Code() === b.Code();
}

/**
 * The check of a capability call served by this binding: the answer against the endpoint's
 * schema (so a mapping never sees garbage), mapped, then against the capability's schema, which
 * is skipped when nothing was mapped and the two schemas are the same.
 */
export function bindingOutputCheck(endpoint: { plugin: { id: string }; output: TypeCheck<TSchema>; checkOutput: OutputCheck }, impl: Implementation, capabilityOutput: TypeCheck<TSchema> | undefined): OutputCheck {
  const { output: endpointOutput, checkOutput: own } = endpoint;
  const provider = endpoint.plugin.id;
  const map = impl.mapOutput?.bind(impl);
  const cap = capabilityOutput && (map || !sameCheck(endpointOutput, capabilityOutput)) ? capabilityOutput : undefined;
  if (!map && !cap) return own;
  return (answer, input) => {
    const data = map ? map(own(answer, input), input) : own(answer, input);
    if (cap && !cap.Check(data)) {
      const e = cap.Errors(data).First();
      throw invalid(provider, `capability output ${e?.path}: ${e?.message}`);
    }
    return data;
  };
}
