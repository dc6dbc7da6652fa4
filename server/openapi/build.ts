/**
 * OpenAPI 3.1 documents generated from the registry's TypeBox schemas (never written by hand):
 * the direct lane declares `info.version` 1.0.0 (spec §9.3), the unified lane its own. The same
 * schemas that validate requests describe them here.
 */
import type { TSchema } from '@sinclair/typebox';
import type { Registry } from '../../core/registry/registry.js';
import type { ResolvedTarget } from '../../core/registry/types.js';
import type { CostDescription } from '../../core/credits/cost.js';
import { ERROR_CODES, MESSAGES } from '../../core/errors.js';
import { LEGACY_ROUTES } from '../v1/legacy-routes.js';

type Json = Record<string, unknown>;

/** Strips TypeBox's symbol keys and returns plain JSON Schema. */
function plain(schema: TSchema | undefined): Json {
  if (!schema) return { type: 'object', additionalProperties: true };
  return JSON.parse(JSON.stringify(schema)) as Json;
}

function costText(c: CostDescription): string {
  switch (c.kind) {
    case 'flat':
      return `${c.credits} credits per successful request.`;
    case 'per_unit':
      return c.note ? `${c.note}.` : `${c.credits} credits per ${c.per} ${c.unit}, rounded up.`;
    case 'per_output_mb':
      return `${c.credits} credits per started ${c.perMb} MB of output.`;
    default:
      return c.note;
  }
}

const bearer = { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'API key' } };
const rateHeaders = {
  'X-RateLimit-Limit': { description: "The key's requests per minute.", schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer' } },
  'X-Request-Id': { description: 'Unique id of this request.', schema: { type: 'string' } },
};

const V1_ERROR = { type: 'object', required: ['error'], properties: { error: { type: 'string', description: 'Human-readable description (spec §2.2).' } } };
const CODE_ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      description: 'Code-execution failure (spec §4.8).',
      required: ['name', 'value', 'traceback'],
      properties: { name: { type: 'string' }, value: { type: 'string' }, traceback: { type: 'string' } },
    },
  },
};

function v1Errors(codeExecution: boolean): Json {
  const ref = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  return {
    '400': ref('Invalid JSON, missing or invalid field, or input rejected upstream.'),
    '401': ref(`${MESSAGES.invalidKey} / ${MESSAGES.badAuthHeader}`),
    '403': ref(`${MESSAGES.insufficientCredits} / ${MESSAGES.providerNotAllowed}`),
    '404': ref('Nothing found (e.g. no subtitles).'),
    '429': ref('Rate limit of the key exceeded (see Retry-After), or a work queue is full.'),
    '500': codeExecution
      ? { description: 'Code execution failed.', content: { 'application/json': { schema: { $ref: '#/components/schemas/CodeError' } } } }
      : ref(`Unexpected error, or ${MESSAGES.notConfigured}`),
    '502': ref('Upstream service unavailable or returned an invalid structure.'),
    '503': ref(MESSAGES.upstreamRateLimited),
  };
}

function targetInfo(registry: Registry, target: string): { resolved?: ResolvedTarget; id: string } {
  const [type, id] = target.split(':') as ['capability' | 'endpoint', string];
  return { resolved: registry.resolve(type, id), id };
}

/** The direct lane document (spec §4.1–4.9). */
export function buildV1Document(registry: Registry): Json {
  const paths: Json = {};
  const schemas: Json = { Error: V1_ERROR, CodeError: CODE_ERROR };
  for (const row of LEGACY_ROUTES) {
    const { resolved, id } = targetInfo(registry, row.target);
    const def = resolved ? (resolved.type === 'capability' ? resolved.capability.def : resolved.endpoint.def) : undefined;
    const input = def ? plain(def.input) : { type: 'object', additionalProperties: true };
    const name = id.replace(/\./g, '_');
    const inputProps = (input.properties ?? {}) as Json;
    const body = { ...input, properties: { ...inputProps, requestSource: { type: 'string', maxLength: 256, description: 'Where the request came from (spec §2.1).' } } };
    schemas[`${name}_input`] = body;
    schemas[`${name}_output`] = def ? plain(def.output) : { type: 'object', additionalProperties: true };
    const op: Json = {
      operationId: `${row.method.toLowerCase()}_${name}`,
      summary: def?.title ?? id,
      description: `${def?.summary ?? 'Served once a provider plugin registers it.'}${def ? ' ' + costText(def.cost.describe) : ''} Runs \`${row.target}\`.`,
      tags: [def?.tags?.[0] ?? 'other'],
      security: [{ bearerAuth: [] }],
      responses: {
        '200': { description: 'Success.', headers: rateHeaders, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}_output` } } } },
        ...v1Errors(id.startsWith('run_') && id.endsWith('_code')),
      },
    };
    if (row.method === 'GET') {
      op.parameters = Object.entries(inputProps).map(([pname, s]) => ({ name: pname, in: 'query', required: ((input.required as string[]) ?? []).includes(pname), schema: s }));
    } else {
      op.requestBody = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}_input` } } } };
    }
    const path = (paths[row.path] ??= {}) as Json;
    path[row.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Content intelligence API — direct lane', version: '1.0.0', description: 'Fixed routes under /api/v1 (spec §4). Errors are `{ error }`.' },
    servers: [{ url: '/' }],
    paths,
    components: { securitySchemes: bearer, schemas },
    security: [{ bearerAuth: [] }],
  };
}

const ENVELOPE_FAIL = {
  type: 'object',
  required: ['success', 'requestId', 'error', 'code'],
  properties: {
    success: { const: false },
    requestId: { type: 'string' },
    error: { type: 'string', description: 'Human-readable description.' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Stable failure code; see the README error table.' },
    details: { type: 'object', additionalProperties: true, description: 'Field or code-execution details when present.' },
  },
};

function envelopeOk(object: string, data: Json): Json {
  return {
    type: 'object',
    required: ['success', 'requestId', 'object', 'data', 'meta'],
    properties: { success: { const: true }, requestId: { type: 'string' }, object: { const: object }, data, meta: { type: 'object', additionalProperties: true } },
  };
}

function v2Responses(object: string, data: Json): Json {
  const fail = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } };
  const out: Json = { '200': { description: 'Success envelope.', headers: rateHeaders, content: { 'application/json': { schema: envelopeOk(object, data) } } } };
  const statuses = [...new Set(Object.values(ERROR_CODES))].sort();
  for (const status of statuses) {
    const codes = Object.entries(ERROR_CODES).filter(([, s]) => s === status).map(([c]) => c);
    out[String(status)] = { description: `Failure envelope: ${codes.join(', ')}.`, ...fail };
  }
  return out;
}

/** The unified lane document (spec §4.10), plus the key-less service routes and the admin API. */
export function buildV2Document(registry: Registry): Json {
  const schemas: Json = { Failure: ENVELOPE_FAIL };
  const targets: Json[] = [];
  for (const cap of registry.capabilities.values()) {
    if (cap.def.visibility === 'legacy') continue;
    schemas[`capability_${cap.id}_input`] = plain(cap.def.input);
    schemas[`capability_${cap.id}_output`] = plain(cap.def.output);
    targets.push({ type: 'capability', id: cap.id, aliases: cap.def.aliases ?? [], cost: costText(cap.def.cost.describe), providers: cap.providers.map((b) => b.plugin.id) });
  }
  for (const ep of registry.endpoints.values()) {
    if (ep.def.visibility === 'legacy') continue;
    const n = ep.id.replace('.', '__');
    schemas[`endpoint_${n}_input`] = plain(ep.def.input);
    schemas[`endpoint_${n}_output`] = plain(ep.def.output);
    targets.push({ type: 'endpoint', id: ep.id, cost: costText(ep.def.cost.describe) });
  }
  const anyData = { type: 'object', additionalProperties: true };
  const json = (schema: Json) => ({ required: true, content: { 'application/json': { schema } } });
  const secured = { security: [{ bearerAuth: [] }] };
  const paging = [
    { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } },
  ];
  const adminOk = (description: string) => ({ '200': { description, content: { 'application/json': { schema: anyData } } }, '400': { description: 'Invalid input.' }, '401': { description: 'Missing or wrong admin token.' }, '404': { description: 'No such key.' } });
  const admin = { tags: ['admin'], security: [{ adminToken: [] }] };
  const idParam = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
  return {
    openapi: '3.1.0',
    info: { title: 'Content intelligence API — unified lane', version: '2.0.0', description: 'Capability-first interface under /api/v2 (spec §4.10) with one envelope. `x-targets` lists every capability and provider endpoint; their input and output schemas are under components.schemas.' },
    servers: [{ url: '/' }],
    'x-targets': targets,
    paths: {
      '/api/v2/run': {
        post: {
          operationId: 'run',
          summary: 'Run a capability or a provider endpoint',
          ...secured,
          requestBody: json({
            type: 'object',
            required: ['type', 'id', 'input'],
            properties: {
              type: { enum: ['capability', 'endpoint'], description: 'Lane selector.' },
              id: { type: 'string', description: 'Capability id (or alias) or `<provider>.<operation>`.' },
              provider: { type: 'string', description: 'Pick one provider of a capability.' },
              input: { type: 'object', additionalProperties: true, description: 'Shape depends on the id: see components.schemas `capability_<id>_input` / `endpoint_<provider>__<operation>_input`.' },
              options: { type: 'object', properties: { include_native: { type: 'boolean', description: "Include the provider's native payload in meta.native." } } },
              requestSource: { type: 'string', maxLength: 256 },
            },
          }),
          responses: v2Responses('capability_result', anyData),
        },
      },
      '/api/v2/search': {
        post: {
          operationId: 'search',
          summary: 'Discover capabilities, providers and endpoints the key may use',
          ...secured,
          requestBody: json({ type: 'object', properties: { query: { type: 'string' }, prompt: { type: 'string' }, type: { enum: ['capability', 'provider', 'endpoint'] }, limit: { type: 'integer', minimum: 1, maximum: 100 } } }),
          responses: v2Responses('search_result', { type: 'object', properties: { items: { type: 'array', items: anyData } } }),
        },
      },
      '/api/v2/details': {
        post: {
          operationId: 'details',
          summary: 'Schemas, cost, providers and examples of one id',
          ...secured,
          requestBody: json({ type: 'object', required: ['id'], properties: { id: { type: 'string' }, type: { enum: ['capability', 'provider', 'endpoint'] }, includeRelated: { type: 'boolean' } } }),
          responses: v2Responses('details', anyData),
        },
      },
      '/api/v2/balance': { get: { operationId: 'balance', summary: 'Credits, budget and spending of the calling key', ...secured, responses: v2Responses('balance', anyData) } },
      '/api/v2/usage': {
        get: {
          operationId: 'usage',
          summary: "The key's usage rows, newest first",
          ...secured,
          parameters: [...['objectType', 'objectId', 'status', 'provider'].map((n) => ({ name: n, in: 'query', schema: { type: 'string' } })), ...paging],
          responses: v2Responses('usage_list', anyData),
        },
      },
      '/api/v2/transactions': { get: { operationId: 'transactions', summary: "The key's ledger entries, newest first", ...secured, parameters: paging, responses: v2Responses('transaction_list', anyData) } },
      '/files/{id}': {
        get: {
          operationId: 'download',
          summary: 'Download a produced file through its signed, expiring URL (no API key)',
          security: [],
          parameters: [...idParam, { name: 'expires', in: 'query', required: true, schema: { type: 'string' } }, { name: 'sig', in: 'query', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'The file.' }, '404': { description: 'Unknown file, bad signature or expired link.' } },
        },
      },
      '/healthz': { get: { operationId: 'healthz', summary: 'Liveness', security: [], responses: { '200': { description: 'Alive.' } } } },
      '/readyz': { get: { operationId: 'readyz', summary: 'Readiness (storage reachable, not draining)', security: [], responses: { '200': { description: 'Ready.' }, '503': { description: 'Not ready.' } } } },
      '/openapi.json': { get: { operationId: 'openapiIndex', summary: 'Links to the API descriptions', security: [], responses: { '200': { description: 'Index.' } } } },
      '/openapi/{lane}.json': { get: { operationId: 'openapiDocument', summary: 'The OpenAPI document of a lane (v1 or v2)', security: [], parameters: [{ name: 'lane', in: 'path', required: true, schema: { enum: ['v1', 'v2'] } }], responses: { '200': { description: 'OpenAPI 3.1 document.' } } } },
      '/docs': { get: { operationId: 'docs', summary: 'Browsable API documentation', security: [], responses: { '200': { description: 'HTML page.' } } } },
      '/admin/keys': {
        post: { ...admin, operationId: 'adminCreateKey', summary: 'Create a key (plaintext shown once)', requestBody: json({ type: 'object', required: ['name'], properties: { name: { type: 'string' }, credits: { type: 'integer' }, rateLimitPerMinute: { type: 'integer' }, budget: { type: ['integer', 'null'] }, policy: { type: 'object', properties: { allow: { type: 'array', items: { type: 'string' } }, block: { type: 'array', items: { type: 'string' } } } } } }), responses: { ...adminOk('Created key.'), '201': { description: 'Created; `key` is the plaintext key.' } } },
        get: { ...admin, operationId: 'adminListKeys', summary: 'List keys', parameters: paging, responses: adminOk('Keys.') },
      },
      '/admin/keys/{id}': {
        get: { ...admin, operationId: 'adminGetKey', summary: 'Read a key', parameters: idParam, responses: adminOk('The key.') },
        patch: { ...admin, operationId: 'adminUpdateKey', summary: 'Update active flag, name, rate limit, budget or policy', parameters: idParam, requestBody: json(anyData), responses: adminOk('The key.') },
      },
      '/admin/keys/{id}/credits': { post: { ...admin, operationId: 'adminAdjustCredits', summary: 'Add or deduct credits with a reason', parameters: idParam, requestBody: json({ type: 'object', required: ['amount', 'reason'], properties: { amount: { type: 'integer' }, reason: { type: 'string' } } }), responses: adminOk('The key.') } },
      '/admin/keys/{id}/usage': { get: { ...admin, operationId: 'adminKeyUsage', summary: "A key's usage rows", parameters: [...idParam, ...paging], responses: adminOk('Usage rows.') } },
      '/admin/keys/{id}/transactions': { get: { ...admin, operationId: 'adminKeyTransactions', summary: "A key's ledger entries", parameters: [...idParam, ...paging], responses: adminOk('Ledger entries.') } },
    },
    components: { securitySchemes: { ...bearer, adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' } }, schemas },
    security: [{ bearerAuth: [] }],
  };
}
