/**
 * The envelope of `POST /api/v2/run` as a route schema (issue 29), with the 400 each failing field
 * has always answered. The target's own `input` is checked by the executor against its schema.
 */
import { Type, type Static } from '@sinclair/typebox';
import { InputError } from '../../core/errors.js';
import { bodyValidator, type BodyRule } from './body-schema.js';

/** Ids are short words; a long one is echoed back and logged, so it is refused before that. */
const MAX_ID_LENGTH = 128;

const AnyObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

/** The run envelope (fields beyond these, such as `requestSource`, are allowed). */
export const RunBody = Type.Object(
  {
    type: Type.Union([Type.Literal('capability'), Type.Literal('endpoint')], { description: 'Lane selector.' }),
    id: Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, description: 'Capability id (or alias) or endpoint id.' }),
    provider: Type.Optional(Type.String({ minLength: 1, description: 'Capabilities only: the one provider to use.' })),
    input: AnyObject("The target's input."),
    options: Type.Optional(AnyObject('Options of the run.')),
  },
  { additionalProperties: true },
);

/** A run request that passed its schema. */
export type RunRequest = Static<typeof RunBody>;

/** The type/id/provider texts shared with a job's submission. */
export const TARGET_TEXTS = [
  ['type', () => "Invalid input: 'type' must be 'capability' or 'endpoint'."],
  ['id', (v: unknown) => (typeof v === 'string' && v.length > MAX_ID_LENGTH ? `Invalid input: 'id' must be at most ${MAX_ID_LENGTH} characters.` : "Invalid input: 'id' is required and must be a non-empty string.")],
  ['provider', () => "Invalid input: 'provider' must be a non-empty string."],
] as const;

/** The rule a schema of the envelope does not say: a provider is chosen for capabilities only. */
export const PROVIDER_CHOICE: BodyRule = {
  rule: (body) =>
    body.type === 'endpoint' && body.provider !== undefined
      ? new InputError("Invalid input: 'provider' applies to capabilities only; an endpoint id already names its provider.", { details: { field: 'provider' } })
      : undefined,
};

/** The `input` and `options` texts shared with a job's submission. */
export const INPUT_TEXT = ['input', () => "Invalid input: 'input' is required and must be an object."] as const;
export const OPTIONS_TEXT = ['options', () => "Invalid input: 'options' must be an object."] as const;

/** Fastify's validator for {@link RunBody}, answering the envelope's own 400 texts. */
export const runBodyValidator = bodyValidator({
  notObject: "Invalid input: body must be an object with 'type', 'id' and 'input'.",
  // On `run` the provider rule is judged last (a job's submission judges it before `input`).
  fields: [...TARGET_TEXTS, INPUT_TEXT, OPTIONS_TEXT, PROVIDER_CHOICE],
});

