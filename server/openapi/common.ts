/**
 * Pieces both OpenAPI documents share: registry schemas as plain JSON Schema, the
 * response headers the server sends (spec §8.2) and the hand-written schemas around the registry's
 * own (every field described, like the plugins' schemas: house style 2).
 */
import type { TSchema } from '@sinclair/typebox';

/** A JSON Schema or OpenAPI object. */
export type Json = Record<string, unknown>;

/** Strips TypeBox's symbol keys and returns plain JSON Schema; a missing schema is a free-form object. */
export function plain(schema: TSchema | undefined, freeForm = 'Free-form object: its shape depends on the provider.'): Json {
  if (!schema) return { type: 'object', additionalProperties: true, description: freeForm };
  return JSON.parse(JSON.stringify(schema)) as Json;
}

/** A `$ref` to a component schema, with the description the referring field needs. */
export function ref(name: string, description?: string): Json {
  return description ? { $ref: `#/components/schemas/${name}`, description } : { $ref: `#/components/schemas/${name}` };
}

/** A JSON request or response body. */
export function jsonContent(schema: Json): Json {
  return { content: { 'application/json': { schema } } };
}

/** Security schemes: API keys for both lanes, the operator's token for /admin. */
export const SECURITY_SCHEMES = {
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'API key', description: 'An API key: `Authorization: Bearer <API_KEY>` (spec §5).' },
};

const int = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

/** Sent on every response (server/app.ts). */
export const REQUEST_ID_HEADER = { 'X-Request-Id': { description: 'Unique id of this request; the usage log and the v2 envelope carry the same id.', schema: { type: 'string' } } };

/** Sent on every response of an authenticated call, errors included (spec §8.2, server/hooks/auth.ts). */
export const RATE_HEADERS = {
  'X-RateLimit-Limit': int("The key's requests per minute."),
  'X-RateLimit-Remaining': int('Requests the key has left in the current minute.'),
};

/** Sent with the key's own 429 (not with a full work queue). */
export const RETRY_AFTER_HEADER = { 'Retry-After': int("Seconds until the key's rate-limit window resets (with RATE_LIMITED only).") };

/** Sent by the direct lane with every success (server/v1/routes.ts). */
export const CREDITS_HEADER = { 'X-Credits-Charged': int('Credits this request was charged (0 for free operations).') };

/** The headers of a response with `status` on an authenticated route: 401 is answered before the key is known. */
export function headersFor(status: string, extra: Json = {}): Json {
  if (status === '401') return { ...REQUEST_ID_HEADER };
  return { ...REQUEST_ID_HEADER, ...RATE_HEADERS, ...(status === '429' ? RETRY_AFTER_HEADER : {}), ...extra };
}

/** `requestSource` as accepted by both lanes (spec §2.1, server/hooks/context.ts). */
export const REQUEST_SOURCE = {
  type: 'string',
  maxLength: 256,
  description:
    'Where the request came from (spec §2.1: API, WEB, AUTOMATION_A, AUTOMATION_B, AUTOMATION_C, PLAYGROUND, DEFAULT_AUTOMATION, AGENT_PREVIEW, AGENT_LIVE, AUTOPILOT, STUDIO). Recorded in the usage log (trimmed, first 64 characters), never validated against the list; also read from the `Request-Source` header or the query string. Default API.',
};

/** The direct lane's error body (spec §2.2). */
export const V1_ERROR = {
  type: 'object',
  required: ['error'],
  description: 'Direct-lane error (spec §2.2).',
  properties: { error: { type: 'string', description: 'Human-readable description: the spec text of the failure (spec §7.1).' } },
};

/** The direct lane's code-execution failure (spec §2.2, §4.8). */
export const CODE_ERROR = {
  type: 'object',
  required: ['error'],
  description: 'Code-execution failure (spec §4.8): `error` is an object instead of a string.',
  properties: {
    error: {
      type: 'object',
      description: 'What the submitted code raised, or why it was stopped (time or memory limit).',
      required: ['name', 'value', 'traceback'],
      properties: {
        name: { type: 'string', description: 'Exception type, e.g. ReferenceError, ZeroDivisionError, TimeoutError, MemoryError.' },
        value: { type: 'string', description: 'Error message.' },
        traceback: { type: 'string', description: 'Stack or traceback text, without ANSI colours.' },
      },
    },
  },
};
