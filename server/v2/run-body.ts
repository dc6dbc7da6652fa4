/**
 * The envelope of `POST /api/v2/run` as a route schema (issue 29: v2 bodies checked by route
 * schemas), and the 400 each failing field answers: the texts users have always been given, so
 * moving the checks into a schema changes no answer. The target's own `input` is checked by the
 * executor against the target's schema.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { InputError } from '../../core/errors.js';

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

/** The fields in the order they are judged: the first failing one names the 400. */
const FIELDS = ['type', 'id', 'provider', 'input', 'options'] as const;
type Field = (typeof FIELDS)[number];

const MESSAGES: Record<Field, (value: unknown) => string> = {
  type: () => "Invalid input: 'type' must be 'capability' or 'endpoint'.",
  id: (v) => (typeof v === 'string' && v.length > MAX_ID_LENGTH ? `Invalid input: 'id' must be at most ${MAX_ID_LENGTH} characters.` : "Invalid input: 'id' is required and must be a non-empty string."),
  provider: () => "Invalid input: 'provider' must be a non-empty string.",
  input: () => "Invalid input: 'input' is required and must be an object.",
  options: () => "Invalid input: 'options' must be an object.",
};

/** The 400 for a body the schema refused. */
function refusal(body: unknown, failing: Set<string>): InputError {
  if (!body || typeof body !== 'object' || Array.isArray(body) || failing.has('')) return new InputError("Invalid input: body must be an object with 'type', 'id' and 'input'.");
  const field = FIELDS.find((f) => failing.has(f))!;
  return new InputError(MESSAGES[field]((body as Record<string, unknown>)[field]), { details: { field } });
}

/**
 * Fastify's validator for a TypeBox body schema: the schema compiled once by TypeBox (no type
 * coercion, unlike the default Ajv setup, so `"id": 5` stays a 400), and a refusal turned into the
 * catalogue's 400 with the field's own text.
 */
export const runBodyValidator: FastifySchemaCompiler<unknown> = ({ schema }) => {
  const check = TypeCompiler.Compile(schema as TSchema);
  return (body: unknown) => {
    if (check.Check(body)) return true;
    // The top-level field each error is under ('' for the body itself).
    const failing = new Set([...check.Errors(body)].map((e) => e.path.split('/')[1] ?? ''));
    return { error: refusal(body, failing) };
  };
};

/** The one rule a schema of the envelope does not say: a provider is chosen for capabilities only. */
export function checkProviderChoice(body: RunRequest): void {
  if (body.type === 'endpoint' && body.provider !== undefined) throw new InputError("Invalid input: 'provider' applies to capabilities only; an endpoint id already names its provider.", { details: { field: 'provider' } });
}
