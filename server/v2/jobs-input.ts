/** Reading a job submission and a results page from a request (issue 25). */
import { InputError } from '../../core/errors.js';
import type { JobRequest } from '../../core/jobs/plan.js';

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

/** Checks the body of `POST /api/v2/jobs`; throws a 400 naming the field. */
export function readJobBody(body: unknown): JobBody {
  if (!isObject(body)) throw new InputError("Invalid input: body must be an object with 'type', 'id' and 'input'.");
  const { type, id, provider, input, options, webhook } = body;
  if (type !== 'capability' && type !== 'endpoint') throw new InputError("Invalid input: 'type' must be 'capability' or 'endpoint'.", { details: { field: 'type' } });
  if (typeof id !== 'string' || id.length === 0) throw new InputError("Invalid input: 'id' is required and must be a non-empty string.", { details: { field: 'id' } });
  if (id.length > MAX_ID_LENGTH) throw new InputError(`Invalid input: 'id' must be at most ${MAX_ID_LENGTH} characters.`, { details: { field: 'id' } });
  if (provider !== undefined && (typeof provider !== 'string' || provider.length === 0 || provider.length > MAX_ID_LENGTH)) throw new InputError("Invalid input: 'provider' must be a non-empty string.", { details: { field: 'provider' } });
  if (type === 'endpoint' && provider !== undefined) throw new InputError("Invalid input: 'provider' applies to capabilities only; an endpoint id already names its provider.", { details: { field: 'provider' } });
  if (!isObject(input)) throw new InputError("Invalid input: 'input' is required and must be an object.", { details: { field: 'input' } });
  if (options !== undefined && !isObject(options)) throw new InputError("Invalid input: 'options' must be an object.", { details: { field: 'options' } });
  return { type, id, provider: provider as string | undefined, input, options: options as Record<string, unknown> | undefined, webhook: readWebhook(webhook) };
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
