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

/** A check across fields that a schema cannot say: the 400 it answers, or undefined. */
export type BodyRule = { rule: (body: Record<string, unknown>) => InputError | undefined };

/** How one body's refusals read. */
export interface BodyTexts<F extends string> {
  /** The text for a body that is not a JSON object. */
  notObject: string;
  /** An absent body (or JSON `null`) is read as `{}` instead of being refused. */
  emptyIsObject?: boolean;
  /**
   * In the order they are judged: the fields, each with its text (given the field's value), and
   * rules across fields, judged once every field before them passed.
   */
  fields: readonly (readonly [F, (value: unknown) => string] | BodyRule)[];
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
    // Every body of the route passes here: one that fits its schema needs only the rules across
    // fields, in their order, without building the set of failing fields.
    const rules = texts.fields.filter((entry): entry is BodyRule => 'rule' in entry);
    return (raw: unknown) => {
      const body = raw === null && texts.emptyIsObject ? {} : raw;
      if (!isObject(body)) return { error: new InputError(texts.notObject) };
      const seen = texts.view ? texts.view(body) : body;
      if (check.Check(seen)) {
        for (const { rule } of rules) {
          const refused = rule(seen);
          if (refused) return { error: refused };
        }
        return { value: body };
      }
      // The top-level field each error is under; the first in the judging order names the answer.
      const failing = new Set([...check.Errors(seen)].map((e) => e.path.split('/')[1] ?? ''));
      for (const entry of texts.fields) {
        if ('rule' in entry) {
          const refused = entry.rule(seen);
          if (refused) return { error: refused };
        } else if (failing.has(entry[0])) {
          const [field, text] = entry;
          return { error: new InputError(text(seen[field]), { details: { field } }) };
        }
      }
      return failing.size === 0 ? { value: body } : { error: new InputError(texts.notObject) };
    };
  };
}
