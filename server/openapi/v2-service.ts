/**
 * The routes outside the two API lanes, as OpenAPI paths: key-less service routes (downloads,
 * health, the descriptions themselves) and the operator's admin API (server/admin/routes.ts).
 */
import { REQUEST_ID_HEADER, jsonContent, ref, type Json } from './common.js';

const text = (description: string) => ({ type: 'string', description });
const error = (description: string) => ({ description, headers: REQUEST_ID_HEADER, ...jsonContent({ type: 'object', description: 'Error.', required: ['error'], properties: { error: text('Human-readable description.'), code: text('Failure code (admin API only).') } }) });

/** Key-less routes: signed downloads, health, the API descriptions and the docs page. */
export function servicePaths(): Json {
  const open = { security: [] };
  const status = { type: 'object', description: 'State of the instance.', required: ['status'], properties: { status: text('`ok`, `ready`, `draining` or `storage unavailable`.') } };
  return {
    '/files/{id}': {
      get: {
        ...open,
        operationId: 'download',
        summary: 'Download a produced file through its signed, expiring URL (no API key)',
        parameters: [
          { name: 'id', in: 'path', required: true, description: 'File id from the URL an operation returned.', schema: { type: 'string' } },
          { name: 'expires', in: 'query', required: true, description: 'Expiry time, as signed.', schema: { type: 'string' } },
          { name: 'sig', in: 'query', required: true, description: 'HMAC signature of id and expiry.', schema: { type: 'string' } },
          { name: 'Range', in: 'header', required: false, description: 'One byte range, e.g. `bytes=0-1023` or `bytes=-500`; other forms get the whole file.', schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'The file, with its media type.', headers: REQUEST_ID_HEADER },
          '206': { description: 'The requested byte range (`Content-Range` names it).', headers: REQUEST_ID_HEADER },
          '404': error('Unknown file, bad signature or expired link.'),
          '416': error('The range starts past the end of the file.'),
          '502': error('The file bucket could not be reached or failed.'),
        },
      },
    },
    // The MCP transport (server/mcp): JSON-RPC messages, not REST; described so clients can find it.
    '/mcp': {
      post: {
        operationId: 'mcp',
        tags: ['mcp'],
        summary: 'MCP Streamable HTTP endpoint (stateless): tools generated from the registry for the calling key',
        security: [{ bearerAuth: [] }],
        parameters: [{ name: 'tools', in: 'query', required: false, description: '`all` (one tool per job; default MCP_TOOLS_MODE) or `discovery` (search, details, run).', schema: { type: 'string', enum: ['all', 'discovery'] } }],
        requestBody: { required: true, description: 'One JSON-RPC 2.0 message of the MCP protocol.', ...jsonContent({ type: 'object', description: 'A JSON-RPC 2.0 message.', additionalProperties: true }) },
        responses: {
          '200': { description: 'JSON-RPC response (JSON or text/event-stream); tool failures are results with isError.', headers: REQUEST_ID_HEADER },
          '202': { description: 'Notification accepted.', headers: REQUEST_ID_HEADER },
          '400': { description: 'Bad JSON or bad `tools` value (JSON-RPC error body).', headers: REQUEST_ID_HEADER },
          '401': { description: 'Missing or invalid API key.', headers: REQUEST_ID_HEADER },
          '403': { description: 'Origin not allowed.', headers: REQUEST_ID_HEADER },
          '429': { description: 'Rate limit exceeded (messages other than tool calls).', headers: REQUEST_ID_HEADER },
        },
      },
      get: { operationId: 'mcpGet', tags: ['mcp'], summary: 'Not available in stateless mode', security: [{ bearerAuth: [] }], responses: { '405': { description: 'Use POST.', headers: REQUEST_ID_HEADER } } },
      delete: { operationId: 'mcpDelete', tags: ['mcp'], summary: 'Not available in stateless mode', security: [{ bearerAuth: [] }], responses: { '405': { description: 'Use POST.', headers: REQUEST_ID_HEADER } } },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        tags: ['operations'],
        summary: 'Prometheus metrics (admin token, or only on METRICS_PORT when that is set)',
        security: [{ adminToken: [] }],
        responses: {
          '200': { description: 'Metrics in the Prometheus text format.', headers: REQUEST_ID_HEADER },
          '401': { description: 'Missing or wrong admin token.', headers: REQUEST_ID_HEADER },
          '404': { description: 'Served on METRICS_PORT instead, or no admin token configured.', headers: REQUEST_ID_HEADER },
        },
      },
    },
    '/healthz': { get: { ...open, operationId: 'healthz', summary: 'Liveness', responses: { '200': { description: 'Alive.', ...jsonContent(status) } } } },
    '/readyz': { get: { ...open, operationId: 'readyz', summary: 'Readiness (storage reachable, not draining)', responses: { '200': { description: 'Ready.', ...jsonContent(status) }, '503': { description: 'Draining or storage unreachable.', ...jsonContent(status) } } } },
    '/openapi.json': {
      get: {
        ...open,
        operationId: 'openapiIndex',
        summary: 'Links to the API descriptions',
        responses: { '200': { description: 'Index.', ...jsonContent({ type: 'object', description: 'Where the documents are.', properties: { lanes: { type: 'object', description: 'Document URL per lane.', properties: { v1: text('Direct lane document.'), v2: text('Unified lane document.') } }, docs: text('Browsable documentation page.') } }) } },
      },
    },
    '/openapi/{lane}.json': {
      get: {
        ...open,
        operationId: 'openapiDocument',
        summary: 'The OpenAPI document of a lane (v1 or v2)',
        parameters: [{ name: 'lane', in: 'path', required: true, description: 'Which lane.', schema: { enum: ['v1', 'v2'] } }],
        responses: { '200': { description: 'OpenAPI 3.1 document.', ...jsonContent({ type: 'object', description: 'OpenAPI 3.1 document.', additionalProperties: true }) }, '404': error('Unknown lane.') },
      },
    },
    '/settings-reference': {
      get: {
        ...open,
        operationId: 'settingsReference',
        summary: 'Settings of this deployment: the service and every plugin it loads (names, defaults, descriptions; never values)',
        parameters: [{ name: 'format', in: 'query', required: false, description: '`json` for a JSON document; markdown otherwise.', schema: { enum: ['json', 'markdown'] } }],
        responses: {
          '200': {
            description: 'The reference.',
            content: {
              'text/markdown': { schema: text('Tables of the service and plugin settings.') },
              'application/json': { schema: { type: 'object', description: 'Service and plugin settings.', additionalProperties: true } },
            },
          },
        },
      },
    },
    '/docs': { get: { ...open, operationId: 'docs', summary: 'Browsable API documentation', responses: { '200': { description: 'HTML page.', content: { 'text/html': { schema: text('The page.') } } } } } },
  };
}

/** The operator's admin API (off unless ADMIN_TOKEN is set). */
export function adminPaths(paging: Json[], usageFilters: Json[]): Json {
  const admin = { tags: ['admin'], security: [{ adminToken: [] }] };
  const idParam = [{ name: 'id', in: 'path', required: true, description: 'Key id.', schema: { type: 'string' } }];
  const key = (description: string) => ({ description, headers: REQUEST_ID_HEADER, ...jsonContent(ref('Key')) });
  const page = (item: string, description: string) => ({
    description,
    headers: REQUEST_ID_HEADER,
    ...jsonContent({ type: 'object', description, required: ['items', 'page', 'limit'], properties: { items: { type: 'array', items: ref(item), description: 'Newest first.' }, page: { type: 'integer', description: 'Page returned.' }, limit: { type: 'integer', description: 'Page size used.' } } }),
  });
  const errors = { '400': error('Invalid input (the message names the field).'), '401': error('Missing or wrong admin token.'), '404': error('No such key.') };
  const body = (schema: Json, description: string) => ({ required: true, description, ...jsonContent(schema) });
  const int = (description: string, extra: Json = {}) => ({ type: 'integer', description, ...extra });
  const keyFields = {
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'Name to recognise the key by.' },
    rateLimitPerMinute: int('Requests per minute (default DEFAULT_RATE_LIMIT).', { minimum: 1, maximum: 1_000_000 }),
    budget: { type: ['integer', 'null'], minimum: 0, description: 'Monthly spending cap in credits, or null for none.' },
    policy: ref('Policy', 'Allow and block rules of the key.'),
  };
  return {
    '/admin/keys': {
      post: { ...admin, operationId: 'adminCreateKey', summary: 'Create a key (plaintext shown once)', requestBody: body({ type: 'object', description: 'The new key.', required: ['name'], properties: { ...keyFields, credits: int('Starting credits (a grant in the ledger).', { minimum: 0 }) } }, 'The new key.'), responses: { '201': key('Created; `key` is the plaintext key, shown this once.'), ...errors } },
      get: { ...admin, operationId: 'adminListKeys', summary: 'List keys', parameters: paging, responses: { '200': page('Key', 'Keys.'), ...errors } },
    },
    '/admin/keys/{id}': {
      get: { ...admin, operationId: 'adminGetKey', summary: 'Read a key', parameters: idParam, responses: { '200': key('The key.'), ...errors } },
      patch: { ...admin, operationId: 'adminUpdateKey', summary: 'Update active flag, name, rate limit, budget or policy', parameters: idParam, requestBody: body({ type: 'object', description: 'Fields to change; credits change only through /credits.', properties: { ...keyFields, active: { type: 'boolean', description: 'false deactivates the key (401 from then on).' } } }, 'Fields to change.'), responses: { '200': key('The key.'), ...errors } },
    },
    '/admin/keys/{id}/credits': { post: { ...admin, operationId: 'adminAdjustCredits', summary: 'Add or deduct credits with a reason', parameters: idParam, requestBody: body({ type: 'object', description: 'The adjustment.', required: ['amount', 'reason'], properties: { amount: int('Credits to add (positive) or deduct (negative).'), reason: { type: 'string', description: 'Why, recorded in the ledger.' } } }, 'The adjustment.'), responses: { '200': key('The key.'), ...errors } } },
    '/admin/keys/{id}/usage': { get: { ...admin, operationId: 'adminKeyUsage', summary: "A key's usage rows", parameters: [...idParam, ...usageFilters, ...paging], responses: { '200': page('UsageRow', 'Usage rows.'), ...errors } } },
    '/admin/keys/{id}/transactions': { get: { ...admin, operationId: 'adminKeyTransactions', summary: "A key's ledger entries", parameters: [...idParam, ...paging], responses: { '200': page('LedgerEntry', 'Ledger entries.'), ...errors } } },
    '/admin/files/{id}': {
      delete: {
        ...admin,
        operationId: 'adminDeleteFile',
        summary: 'Delete a produced file before its time (its link answers 404 from then on)',
        parameters: [{ name: 'id', in: 'path', required: true, description: 'File id: the path segment after /files/ in its link.', schema: { type: 'string' } }],
        responses: {
          '200': { description: 'Deleted.', headers: REQUEST_ID_HEADER, ...jsonContent({ type: 'object', description: 'The file deleted.', required: ['id', 'deleted'], properties: { id: { type: 'string', description: 'File id.' }, deleted: { type: 'boolean', description: 'Always true.' } } }) },
          '401': error('Missing or wrong admin token.'),
          '404': error('No such file on this instance.'),
        },
      },
    },
  };
}
