/**
 * Route schemas for the v2 lane's bodies (issue 29): a TypeBox schema declares the body, compiled
 * once by TypeBox (no type coercion, unlike Fastify's default Ajv setup, so `"limit": "5"` stays a
 * 400), and a refusal becomes the catalogue's 400 with the text users have always been given for
 * the first failing field.
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { InputError } from '../../core/errors.js';

/** How one body's refusals read. */
export interface BodyTexts<F extends string> {
  /** The text for a body that is not a JSON object. */
  notObject: string;
  /** An absent body (or JSON `null`) is read as `{}` instead of being refused. */
  emptyIsObject?: boolean;
  /** The fields in the order they are judged, each with its text (given the field's value). */
  fields: readonly [F, (value: unknown) => string][];
  /** What the schema checks, when it is not the body as sent (e.g. `prompt` standing in for `query`). */
  view?: (body: Record<string, unknown>) => Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A Fastify validator compiler for a body schema whose refusals read as `texts` says. The
 * validated body is handed to the route as it was sent (or `{}` for an allowed empty body).
 */
export function bodyValidator<F extends string>(texts: BodyTexts<F>): FastifySchemaCompiler<unknown> {
  return ({ schema }) => {
    const check = TypeCompiler.Compile(schema as TSchema);
    return (raw: unknown) => {
      const body = raw === null && texts.emptyIsObject ? {} : raw;
      if (!isObject(body)) return { error: new InputError(texts.notObject) };
      const seen = texts.view ? texts.view(body) : body;
      if (check.Check(seen)) return { value: body };
      // The top-level field each error is under; the first in the judging order names the answer.
      const failing = new Set([...check.Errors(seen)].map((e) => e.path.split('/')[1] ?? ''));
      const hit = texts.fields.find(([field]) => failing.has(field));
      if (!hit) return { error: new InputError(texts.notObject) };
      const [field, text] = hit;
      return { error: new InputError(text(seen[field]), { details: { field } }) };
    };
  };
}
