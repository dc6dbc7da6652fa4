/**
 * The bodies of `POST /api/v2/search` and `POST /api/v2/details` as route schemas (issue 29), with
 * the 400 each failing field has always answered. Both take an empty body as `{}`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { bodyValidator } from './body-schema.js';

const MAX_QUERY_LENGTH = 1000;
const NOT_OBJECT = 'Invalid input: body must be an object.';
const TYPE_TEXT = () => "Invalid input: 'type' must be 'capability', 'provider' or 'endpoint'.";

const EntryType = Type.Union([Type.Literal('capability'), Type.Literal('provider'), Type.Literal('endpoint')], { description: 'Kind of entry.' });

/** A search as judged: `query`, or `prompt` standing in for it, empty when neither is sent. */
export const SearchBody = Type.Object({
  query: Type.String({ maxLength: MAX_QUERY_LENGTH, description: 'Keywords; empty lists everything.' }),
  type: Type.Optional(EntryType),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Most entries returned (default 20).' })),
});

/** A search that passed its schema (as judged, see {@link searchOf}). */
export type SearchRequest = Static<typeof SearchBody>;

/** The search a body asks for: `query ?? prompt ?? ''`, with `type` and `limit` as sent. */
export function searchOf(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { query: body.query ?? body.prompt ?? '' };
  if (body.type !== undefined) out.type = body.type;
  if (body.limit !== undefined) out.limit = body.limit;
  return out;
}

/** Fastify's validator for {@link SearchBody}. */
export const searchBodyValidator = bodyValidator({
  notObject: NOT_OBJECT,
  emptyIsObject: true,
  view: searchOf,
  fields: [
    ['query', (v) => (typeof v === 'string' ? `Invalid input: 'query' must be at most ${MAX_QUERY_LENGTH} characters.` : "Invalid input: 'query' must be a string.")],
    ['type', TYPE_TEXT],
    ['limit', () => "Invalid input: 'limit' must be an integer from 1 to 100."],
  ],
});

/** A details request. */
export const DetailsBody = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'A capability, endpoint or provider id.' }),
    type: Type.Optional(EntryType),
    includeRelated: Type.Optional(Type.Unknown({ description: 'Related entries too, when `true`.' })),
  },
  { additionalProperties: true },
);

/** A details request that passed its schema. */
export type DetailsRequest = Static<typeof DetailsBody>;

/** Fastify's validator for {@link DetailsBody}. */
export const detailsBodyValidator = bodyValidator({
  notObject: NOT_OBJECT,
  emptyIsObject: true,
  fields: [
    ['id', () => "Invalid input: 'id' is required and must be a non-empty string."],
    ['type', TYPE_TEXT],
  ],
});
