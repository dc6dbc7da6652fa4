/**
 * Declarative request checks for fakes (issue 29): a route states the body (or query) the provider
 * accepts as a TypeBox schema, and the kit refuses anything else the way the provider does, so a
 * fake needs no hand-written `invalid()` function. The message is the failing schema's own `error`
 * option when it has one (`{{value}}` there is the offending value, `{{path}}` its place), else
 * `<path>: <what TypeBox says>`; only the first violation is reported, as providers do.
 */
import { Type, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import type { FakeAnswer } from './fake-routes.js';
import type { FakeRoute, FakeUpstream } from './fake-upstream.js';

/** One reason a value fails its schema. */
export interface Violation {
  /** `a.b.0`, as providers name fields (empty for the value itself). */
  field: string;
  /** The schema's `error` text, filled, or `<field>: <TypeBox message>`. */
  message: string;
  /** What kind of failure: `required`, `additional_property`, `enum` (a union of literals) or `invalid`. */
  kind: 'required' | 'additional_property' | 'enum' | 'invalid';
  error: ValueError;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function kindOf(type: ValueErrorType): Violation['kind'] {
  if (type === ValueErrorType.ObjectRequiredProperty) return 'required';
  if (type === ValueErrorType.ObjectAdditionalProperties) return 'additional_property';
  return type === ValueErrorType.Union ? 'enum' : 'invalid';
}

/** Every reason `value` fails `schema` (none when it passes), in TypeBox's order. */
export function violations(schema: TSchema, value: unknown): Violation[] {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(value)) return [];
  return [...check.Errors(value)].map((error) => {
    const field = error.path.slice(1).replace(/\//g, '.');
    const own = (error.schema as { error?: unknown }).error;
    const message = typeof own === 'string' ? own.replace(/\{\{value\}\}/g, String(error.value)).replace(/\{\{path\}\}/g, field) : `${field || 'body'}: ${error.message}`;
    return { field, message, kind: kindOf(error.type), error };
  });
}

/** The first violation's message, or undefined when `value` passes. */
export function firstViolation(schema: TSchema, value: unknown): string | undefined {
  return violations(schema, value)[0]?.message;
}

/**
 * The values a provider accepts for a field, as a schema a checked route reads: one literal each,
 * refused with the provider's own `error` text (`{{value}}`, `{{path}}` filled) when given.
 */
export function literals<V extends string | number>(values: readonly V[], error?: string): TUnion<TLiteral<V>[]> {
  return Type.Union(values.map((v) => Type.Literal(v)), error === undefined ? {} : { error });
}

/** What a checked route checks: the parsed JSON body and/or the query parameters. */
export interface RequestSchemas {
  body?: TSchema;
  query?: TSchema;
}

/**
 * `route`, answered only for a request that passes `schemas`; otherwise the provider's refusal:
 * `refuse(message, fake)`, by default its error body with status 400.
 */
export function checked<S extends object>(schemas: RequestSchemas, route: FakeRoute<S>, refuse: (message: string, fake: FakeUpstream<S>) => FakeAnswer = (m, fake) => fake.error(400, m)): FakeRoute<S> {
  return (req, fake) => {
    const why = (schemas.body && firstViolation(schemas.body, req.body)) ?? (schemas.query && firstViolation(schemas.query, req.query));
    return why === undefined ? route(req, fake) : refuse(why, fake);
  };
}
