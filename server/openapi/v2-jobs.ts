/**
 * The jobs routes in the unified-lane document (issue 25): submit, read (with a results page),
 * cancel and list for a key; list, read and cancel for the operator. Mirrors server/v2/jobs.ts
 * and server/admin/jobs.ts.
 */
import { REQUEST_ID_HEADER, jsonContent, type Json } from './common.js';

const str = (description: string, extra: Json = {}) => ({ type: 'string', description, ...extra });
const int = (description: string, extra: Json = {}) => ({ type: 'integer', description, ...extra });
const nullable = (type: string, description: string, extra: Json = {}) => ({ type: [type, 'null'], description, ...extra });
const obj = (description: string, properties: Record<string, Json>, required = Object.keys(properties)) => ({ type: 'object', description, required, properties });
const STATUS = { enum: ['queued', 'running', 'completed', 'failed', 'cancelled'], description: 'Where the job is: queued, running, then completed, failed or cancelled.' };
const EVENTS = ['job.started', 'job.page', 'job.completed', 'job.failed', 'job.cancelled'];

/** A job's status view (`object: "job"`). */
export const JOB_VIEW = obj(
  'A job: its state, progress, credits charged, and its output (single-result jobs) or a page of results (item-by-item jobs).',
  {
    id: str('Job id (`job_…`).'),
    status: STATUS,
    type: { enum: ['capability', 'endpoint'], description: 'What kind of target runs.' },
    target: str('The capability or endpoint id.'),
    provider: nullable('string', 'The provider whose steps run the job item by item, or the one asked for; null when the provider chain decides.'),
    progress: obj('Items finished so far.', { done: int('Items done (charged).', { minimum: 0 }), failed: int('Items failed (free).', { minimum: 0 }), total: nullable('integer', 'Items the job will run, when known up front (null for a crawl).') }),
    creditsCharged: int('Credits charged so far: the price of the items done.', { minimum: 0 }),
    createdAt: str('When it was submitted.', { format: 'date-time' }),
    startedAt: nullable('string', 'When a worker started it.', { format: 'date-time' }),
    finishedAt: nullable('string', 'When it ended.', { format: 'date-time' }),
    error: obj('Why it failed (failed jobs only).', { code: str('Failure code, as in the error catalogue.'), message: str('What went wrong.') }),
    data: { description: 'The output of a single-result job, once completed.' },
    results: obj('A page of results of an item-by-item job, in the order they finished.', {
      items: { type: 'array', items: { description: 'One item: a page, a batch entry (with `error` when it failed).' }, description: 'Up to `limit` results.' },
      next: nullable('string', 'Cursor of the next page (`?cursor=`), or null when no more results exist yet.'),
    }),
  },
  ['id', 'status', 'type', 'target', 'provider', 'progress', 'creditsCharged', 'createdAt', 'startedAt', 'finishedAt'],
);

const SUBMITTED = obj('The accepted job.', {
  id: str('Job id (`job_…`).'),
  status: { const: 'queued', description: 'Always queued when accepted.' },
  type: { enum: ['capability', 'endpoint'], description: 'What kind of target runs.' },
  target: str('The canonical capability or endpoint id.'),
  createdAt: str('When it was accepted.', { format: 'date-time' }),
  statusUrl: str('Where to read it: GET this path.'),
});

const SUBMIT = obj(
  'A job: any capability or endpoint the key may use (the direct-lane-only ones by capability id), with its input. The input is checked before the job is accepted.',
  {
    type: { enum: ['capability', 'endpoint'], description: 'Lane selector, as on run.' },
    id: str('Capability or endpoint id.', { minLength: 1, maxLength: 128 }),
    provider: str('Use only this provider of the capability.', { minLength: 1, maxLength: 128 }),
    input: { type: 'object', description: "The target's input; a capability may accept more as a job (a crawl's limit up to 10,000)." },
    options: { type: 'object', description: 'Options of the run.' },
    webhook: obj('Where job events are posted (signed).', {
      url: str('http(s) URL receiving the events.', { maxLength: 2048 }),
      events: { type: 'array', items: { enum: EVENTS, description: 'An event type.' }, maxItems: 10, description: 'Only these events (default all).' },
      metadata: { description: 'Echoed in every event.' },
    }, ['url']),
  },
  ['type', 'id', 'input'],
);

const idParam = [{ name: 'id', in: 'path', required: true, description: 'Job id.', schema: { type: 'string' } }];
const resultParams = [
  { name: 'cursor', in: 'query', description: 'The `results.next` of the previous page.', schema: { type: 'string' } },
  { name: 'limit', in: 'query', description: 'Results per page (at most 100, default 100).', schema: { type: 'integer', minimum: 1, maximum: 100 } },
  { name: 'skipData', in: 'query', description: 'true: the status alone, without data or results.', schema: { enum: ['true', 'false'] } },
];
const listParams = [
  { name: 'status', in: 'query', description: 'Only jobs in this state.', schema: STATUS },
  { name: 'page', in: 'query', description: 'Page (1-based, default 1).', schema: { type: 'integer', minimum: 1 } },
  { name: 'limit', in: 'query', description: 'Page size (default 20, at most 100).', schema: { type: 'integer', minimum: 1, maximum: 100 } },
];

/** The key's jobs routes; `responses` builds the lane's envelopes and failures. */
export function jobPaths(h: { secured: Json; responses(object: string, data: Json, meta: Json): Json }): Json {
  const none = { type: 'object', description: 'Nothing for this object.', additionalProperties: false };
  const submitted = h.responses('job', SUBMITTED, none) as Record<string, Json>;
  const { '200': accepted, ...failures } = submitted;
  const pageMeta = obj('Paging of this answer.', { page: int('Page returned (1-based).', { minimum: 1 }), limit: int('Page size used.', { minimum: 1 }), count: int('Items on this page.', { minimum: 0 }) });
  return {
    '/api/v2/jobs': {
      post: {
        operationId: 'submitJob',
        summary: 'Run a capability or endpoint as a job',
        description: 'Answers 202 with the job id at once; read it at statusUrl. Credits are charged as the work is done, per item, never for failures.',
        ...h.secured,
        requestBody: { required: true, description: 'The job.', ...jsonContent(SUBMIT) },
        responses: { '202': { ...(accepted as Json), description: 'Accepted: the job is queued.' }, ...failures },
      },
      get: { operationId: 'listJobs', summary: "The key's jobs, newest first", ...h.secured, parameters: listParams, responses: h.responses('job_list', obj('Jobs.', { items: { type: 'array', items: JOB_VIEW, description: 'Newest first.' } }), pageMeta) },
    },
    '/api/v2/jobs/{id}': {
      get: { operationId: 'getJob', summary: 'A job: status, progress, output or a page of results (free)', ...h.secured, parameters: [...idParam, ...resultParams], responses: h.responses('job', JOB_VIEW, none) },
      delete: { operationId: 'cancelJob', summary: 'Cancel a job: work in flight stops, items done stay charged', ...h.secured, parameters: idParam, responses: h.responses('job', JOB_VIEW, none) },
    },
  };
}

/** The operator's jobs routes. */
export function adminJobPaths(): Json {
  const admin = { tags: ['admin'], security: [{ adminToken: [] }] };
  const error = (description: string) => ({ description, headers: REQUEST_ID_HEADER, ...jsonContent(obj('Error.', { error: str('Human-readable description.'), code: str('Failure code.') }, ['error'])) });
  const errors = { '400': error('Invalid input (the message names the field).'), '401': error('Missing or wrong admin token.'), '404': error('No such job.') };
  const withKey = { ...JOB_VIEW, properties: { ...JOB_VIEW.properties, keyId: str('The key that submitted it.') } };
  const ok = (schema: Json, description: string) => ({ '200': { description, headers: REQUEST_ID_HEADER, ...jsonContent(schema) }, ...errors });
  return {
    '/admin/jobs': {
      get: {
        ...admin,
        operationId: 'adminListJobs',
        summary: 'Every key\'s jobs, newest first',
        parameters: [...listParams, { name: 'keyId', in: 'query', description: 'Only this key\'s jobs.', schema: { type: 'string' } }, { name: 'target', in: 'query', description: 'Only jobs of this capability or endpoint.', schema: { type: 'string' } }],
        responses: ok(obj('Jobs.', { items: { type: 'array', items: withKey, description: 'Newest first.' }, page: int('Page returned.'), limit: int('Page size used.') }), 'Jobs.'),
      },
    },
    '/admin/jobs/{id}': { get: { ...admin, operationId: 'adminGetJob', summary: 'One job of any key', parameters: [...idParam, ...resultParams], responses: ok(withKey, 'The job.') } },
    '/admin/jobs/{id}/cancel': { post: { ...admin, operationId: 'adminCancelJob', summary: 'Cancel a job of any key', parameters: idParam, responses: ok(JOB_VIEW, 'The job.') } },
  };
}
