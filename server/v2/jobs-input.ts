/** Reading a job submission and a results page from a request (issue 25). */
import { InputError } from '../../core/errors.js';
import type { JobRequest } from '../../core/jobs/plan.js';

const MAX_ID_LENGTH = 128;
const MAX_URL_LENGTH = 2048;
const MAX_EVENTS = 10;
const EVENT_TYPES = ['job.started', 'job.page', 'job.completed', 'job.failed', 'job.cancelled'];
/** Results per page at most (issue 25: ≤ 100). */
export const MAX_RESULTS_PAGE = 100;

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

/** `?cursor=&limit=&skipData=` of a job status read. */
export function resultPaging(q: Record<string, unknown>): { cursor: number; limit: number; skipData: boolean } {
  let cursor = 0;
  if (q.cursor !== undefined && q.cursor !== '') {
    cursor = Number(q.cursor);
    if (!Number.isSafeInteger(cursor) || cursor < 0) throw new InputError("Invalid input: 'cursor' must be the 'next' value of a previous page.", { details: { field: 'cursor' } });
  }
  let limit = MAX_RESULTS_PAGE;
  if (q.limit !== undefined && q.limit !== '') {
    limit = Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RESULTS_PAGE) throw new InputError(`Invalid input: 'limit' must be an integer from 1 to ${MAX_RESULTS_PAGE}.`, { details: { field: 'limit' } });
  }
  const skip = q.skipData;
  if (skip !== undefined && skip !== 'true' && skip !== 'false') throw new InputError("Invalid input: 'skipData' must be true or false.", { details: { field: 'skipData' } });
  return { cursor, limit, skipData: skip === 'true' };
}

/** `?page=&limit=` of a job listing (limit ≤ 100, default 20). */
export function listPaging(q: Record<string, unknown>): { page: number; limit: number } {
  const num = (name: string, dflt: number, max: number) => {
    const raw = q[name];
    if (raw === undefined || raw === '') return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new InputError(`Invalid input: '${name}' must be an integer from 1 to ${max}.`, { details: { field: name } });
    return n;
  };
  return { page: num('page', 1, 1_000_000), limit: num('limit', 20, MAX_RESULTS_PAGE) };
}
