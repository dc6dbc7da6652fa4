/** Shared schema pieces for capability declarations. */
import { Type } from '../sdk.js';

/** Spec §2.1: where the request came from. Free text is recorded as sent (see the usage log). */
export const RequestSource = Type.Optional(
  Type.String({ description: 'Where the request came from (spec §2.1), e.g. API, AUTOMATION_A, PLAYGROUND.', maxLength: 256 }),
);

/** A free-form object output (capabilities whose output shape the spec does not show). */
export const AnyObject = Type.Object({}, { additionalProperties: true, description: 'Provider-shaped result.' });
