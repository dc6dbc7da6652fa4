/**
 * The webhook routes (issue 25) as OpenAPI paths: the key holder's signing secret and a job's
 * deliveries in the v2 envelope, and the admin API's view of a key's secret.
 */
import { REQUEST_ID_HEADER, jsonContent, type Json } from './common.js';

const text = (description: string, extra: Json = {}) => ({ type: 'string', description, ...extra });

const SECRET: Json = {
  type: 'object',
  description: "The key's webhook signing secret.",
  required: ['secret', 'createdAt'],
  properties: {
    secret: text('`whsec_` + base64 of 32 random bytes: base64-decode the part after `whsec_` to get the HMAC-SHA256 key.', { pattern: '^whsec_[A-Za-z0-9+/]+=*$' }),
    createdAt: text('When this secret was made (ISO 8601).', { format: 'date-time' }),
  },
};

const ATTEMPT: Json = {
  type: 'object',
  description: 'One attempt to deliver the event.',
  required: ['attempt', 'attemptedAt', 'status', 'error', 'durationMs'],
  properties: {
    attempt: { type: 'integer', minimum: 1, description: 'Attempt number, from 1.' },
    attemptedAt: text('When the attempt started (ISO 8601).', { format: 'date-time' }),
    status: { type: ['integer', 'null'], description: "The receiver's HTTP status, or null when no answer came." },
    error: { type: ['string', 'null'], description: 'Why no answer came (timeout, refused URL, network error), or null.' },
    durationMs: { type: 'integer', minimum: 0, description: 'How long the attempt took.' },
  },
};

const DELIVERY: Json = {
  type: 'object',
  description: 'One webhook event of the job with its attempts.',
  required: ['id', 'type', 'url', 'status', 'createdAt', 'attempts'],
  properties: {
    id: text('The event id, sent as the `webhook-id` header on every attempt.'),
    type: { enum: ['job.started', 'job.page', 'job.completed', 'job.failed', 'job.cancelled'], description: 'Event type.' },
    url: text('Where the event is sent.'),
    status: { enum: ['pending', 'delivered', 'failed'], description: '`pending` while attempts remain, `delivered` after a 2xx, `failed` once retries ran out or the URL was refused.' },
    createdAt: text('When the event happened (ISO 8601).', { format: 'date-time' }),
    attempts: { type: 'array', items: ATTEMPT, description: 'Every attempt made so far, oldest first.' },
  },
};

/** The v2 paths; `responses` wraps a data schema in the lane's envelope and failures. */
export function webhookPaths(responses: (object: string, data: Json, meta: Json) => Json): Json {
  const secured = { security: [{ bearerAuth: [] }] };
  const noMeta = { type: 'object', description: 'Nothing for this object.', additionalProperties: false };
  return {
    '/api/v2/webhook-secret': {
      get: { operationId: 'getWebhookSecret', summary: "Read the key's webhook signing secret (made on first use)", ...secured, responses: responses('webhook_secret', SECRET, noMeta) },
      post: { operationId: 'rotateWebhookSecret', summary: 'Replace the webhook signing secret; the old one stops signing at once', ...secured, responses: responses('webhook_secret', SECRET, noMeta) },
    },
    '/api/v2/jobs/{id}/deliveries': {
      get: {
        operationId: 'jobDeliveries',
        summary: "Every webhook event of the key's job and every attempt to deliver it",
        ...secured,
        parameters: [
          { name: 'id', in: 'path', required: true, description: 'Job id.', schema: { type: 'string' } },
          { name: 'page', in: 'query', description: 'Page of events (1-based, default 1).', schema: { type: 'integer', minimum: 1 } },
          { name: 'limit', in: 'query', description: 'Events per page (default 50, at most 500).', schema: { type: 'integer', minimum: 1, maximum: 500 } },
        ],
        responses: responses(
          'delivery_list',
          { type: 'object', description: 'The events, oldest first.', required: ['items'], properties: { items: { type: 'array', items: DELIVERY, description: 'Events, oldest first.' } } },
          {
            type: 'object',
            description: 'Which job and page.',
            required: ['jobId', 'page', 'limit', 'count'],
            properties: { jobId: text('The job id.'), page: { type: 'integer', description: 'Page returned.' }, limit: { type: 'integer', description: 'Page size used.' }, count: { type: 'integer', description: 'Events on this page.' } },
          },
        ),
      },
    },
  };
}

/** The admin API's secret routes. */
export function adminWebhookPaths(): Json {
  const admin = { tags: ['admin'], security: [{ adminToken: [] }] };
  const parameters = [{ name: 'id', in: 'path', required: true, description: 'Key id.', schema: { type: 'string' } }];
  const error = (description: string) => ({ description, headers: REQUEST_ID_HEADER, ...jsonContent({ type: 'object', description: 'Error.', required: ['error'], properties: { error: text('Human-readable description.'), code: text('Failure code.') } }) });
  const ok = (description: string) => ({
    description,
    headers: REQUEST_ID_HEADER,
    ...jsonContent({ ...SECRET, required: ['keyId', 'secret', 'createdAt'], properties: { keyId: text('Key id.'), ...(SECRET.properties as Json) } }),
  });
  const errors = { '401': error('Missing or wrong admin token.'), '404': error('No such key.') };
  return {
    '/admin/keys/{id}/webhook-secret': {
      get: { ...admin, operationId: 'adminGetWebhookSecret', summary: "Read a key's webhook signing secret (made on first use)", parameters, responses: { '200': ok('The secret.'), ...errors } },
      post: { ...admin, operationId: 'adminRotateWebhookSecret', summary: "Replace a key's webhook signing secret", parameters, responses: { '200': ok('The new secret.'), ...errors } },
    },
  };
}
