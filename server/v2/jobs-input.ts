/**
 * A job submission's body (issue 25): the envelope is a route schema (issue 29) answering the
 * texts `run` answers, with the provider rule judged before `input` as it always was here; the
 * webhook, whose URL a schema cannot judge, is read after it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { InputError } from '../../core/errors.js';
import type { JobRequest } from '../../core/jobs/plan.js';
import { bodyValidator } from './body-schema.js';
import { INPUT_TEXT, OPTIONS_TEXT, PROVIDER_CHOICE, RunBody, TARGET_TEXTS } from './run-body.js';

const MAX_ID_LENGTH = 128;
const MAX_URL_LENGTH = 2048;
const MAX_EVENTS = 10;
const EVENT_TYPES = ['job.started', 'job.page', 'job.completed', 'job.failed', 'job.cancelled'];

/** A job submission's fields, checked as `run` checks its own (same messages). */
export interface JobBody extends JobRequest {
  options?: Record<string, unknown>;
  webhook?: { url: string; events?: string[]; metadata?: unknown };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The submission's envelope: `run`'s, with a bounded provider id and an optional webhook. */
export const JobSubmission = Type.Object(
  {
    ...RunBody.properties,
    provider: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, description: 'Capabilities only: the one provider to use.' })),
    webhook: Type.Optional(Type.Unknown({ description: 'Where to send the job\'s events: { url, events?, metadata? }.' })),
  },
  { additionalProperties: true },
);

/** Fastify's validator for {@link JobSubmission}. */
export const jobSubmissionValidator = bodyValidator({
  notObject: "Invalid input: body must be an object with 'type', 'id' and 'input'.",
  fields: [...TARGET_TEXTS, PROVIDER_CHOICE, INPUT_TEXT, OPTIONS_TEXT],
});

/** A submission that passed {@link JobSubmission}, with its webhook read; throws a 400 naming the field. */
export function readJobBody(body: Static<typeof JobSubmission>): JobBody {
  const { type, id, provider, input, options, webhook } = body;
  return { type, id, provider, input, options: options as Record<string, unknown> | undefined, webhook: readWebhook(webhook) };
}

function readWebhook(w: unknown): JobBody['webhook'] {
  if (w === undefined) return undefined;
  if (!isObject(w)) throw new InputError("Invalid input: 'webhook' must be an object with 'url'.", { details: { field: 'webhook' } });
  const { url, events, metadata } = w;
  let ok = typeof url === 'string' && url.length <= MAX_URL_LENGTH;
  if (ok) {
    try {
      const u = new URL(url as string);
      ok = u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      ok = false;
    }
  }
  if (!ok) throw new InputError("Invalid input: 'webhook.url' must be an http(s) URL.", { details: { field: 'webhook.url' } });
  if (events !== undefined && (!Array.isArray(events) || events.length > MAX_EVENTS || !events.every((e) => EVENT_TYPES.includes(e as string)))) {
    throw new InputError(`Invalid input: 'webhook.events' must be a list of: ${EVENT_TYPES.join(', ')}.`, { details: { field: 'webhook.events' } });
  }
  if (metadata !== undefined && JSON.stringify(metadata).length > 10_000) throw new InputError("Invalid input: 'webhook.metadata' must be at most 10000 characters as JSON.", { details: { field: 'webhook.metadata' } });
  return { url: url as string, events: events as string[] | undefined, metadata };
}
