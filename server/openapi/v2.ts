/**
 * The unified-lane OpenAPI document (spec §4.10) plus the key-less service routes and the admin
 * API. `POST /api/v2/run` is described per registry target: its body is a `oneOf` of one request
 * schema per capability and endpoint (told apart by `id`, with the target's own input schema) and
 * its success a `oneOf` of one envelope per target (told apart by `meta.id`, with its own output).
 */
import type { Registry } from '../../core/registry/registry.js';
import { ERROR_CODES } from '../../core/errors.js';
import { offeredIn } from '../../core/policy/visibility.js';
import { SECURITY_SCHEMES, headersFor, jsonContent, plain, ref, type Json } from './common.js';
import { describeCost } from '../cost-text.js';
import { specTexts } from './v1.js';
import { DETAILS_DATA, V2_COMPONENTS, envelopeOk } from './v2-shapes.js';
import { adminPaths, servicePaths } from './v2-service.js';
import { adminConsolePaths, consolePaths } from './console-paths.js';
import { adminJobPaths, jobPaths } from './v2-jobs.js';
import { adminWebhookPaths, webhookPaths } from './webhook-paths.js';
import { monitorPaths } from './v2-monitors.js';

/** The failure responses every authenticated v2 route may give, one per HTTP status. */
function failures(): Json {
  const out: Json = {};
  for (const status of [...new Set(Object.values(ERROR_CODES))].sort()) {
    const codes = Object.entries(ERROR_CODES).filter(([, s]) => s === status).map(([c]) => c);
    out[String(status)] = { description: `Failure envelope: ${codes.join(', ')}.`, headers: headersFor(String(status)), ...jsonContent(ref('Failure')) };
  }
  return out;
}

function responses(object: string, data: Json, meta: Json): Json {
  return { '200': { description: 'Success envelope.', headers: headersFor('200'), ...jsonContent(envelopeOk(object, data, meta)) }, ...failures() };
}

const meta = (type: string, id: string, providers: string[]): Json => ({
  type: 'object',
  description: 'How the call was served.',
  required: ['type', 'id', 'provider', 'credits'],
  properties: {
    type: { const: type, description: 'Lane selector as sent.' },
    id: { const: id, description: 'Canonical id of the target (an alias is resolved).' },
    provider: providers.length ? { enum: providers, description: 'Provider that served the call.' } : { type: ['string', 'null'], description: 'Provider that served the call (null when none is involved).' },
    credits: { type: 'integer', minimum: 0, description: 'Credits charged.' },
    fallbacks: { type: 'array', items: ref('Fallback'), description: 'Providers tried first that failed, when any.' },
    native: { description: "The provider's raw payload (only with options.include_native; null when the provider has none)." },
  },
});

/** The run request and result schemas of one target; returns the names it added. */
function runTarget(schemas: Json, t: { type: 'capability' | 'endpoint'; id: string; n: string; ids: string[]; providers: string[]; title: string; cost: string; texts: string[] }) {
  const request = `run_${t.type}_${t.n}`;
  const result = `${request}_result`;
  const texts = t.texts.length ? ` Spec 400 texts: ${t.texts.map((x) => `\`${x}\``).join('; ')}.` : '';
  const properties: Json = {
    type: { const: t.type, description: `Lane selector: ${t.type === 'capability' ? 'a capability' : 'a provider endpoint'}.` },
    id: t.ids.length > 1 ? { enum: t.ids, description: 'The capability id or one of its aliases.' } : { const: t.id, description: t.type === 'capability' ? 'The capability id.' : 'The endpoint id `<provider>.<operation>`.' },
    input: ref(`${t.type}_${t.n}_input`, `Input of ${t.id}.`),
    options: ref('RunOptions', 'Options of the run.'),
    requestSource: ref('RequestSource', 'Where the request came from (spec §2.1).'),
  };
  if (t.type === 'capability' && t.providers.length) properties.provider = { enum: t.providers, description: 'Use only this provider (by default they are tried in order, falling back on upstream faults).' };
  schemas[request] = { type: 'object', description: `Run ${t.id}: ${t.title}. ${t.cost}${texts}`, required: ['type', 'id', 'input'], properties };
  schemas[result] = envelopeOk(`${t.type}_result`, ref(`${t.type}_${t.n}_output`, `Output of ${t.id}.`), meta(t.type, t.id, t.providers), `Success envelope of ${t.id}.`);
  return { request, result };
}

/** The unified lane document (spec §4.10), plus the key-less service routes and the admin API. */
export function buildV2Document(registry: Registry): Json {
  const schemas: Json = { ...V2_COMPONENTS };
  const targets: Json[] = [];
  const requests: Json[] = [];
  const results: Json[] = [];
  const mapping: Record<string, string> = {};
  const add = (t: Parameters<typeof runTarget>[1]) => {
    const { request, result } = runTarget(schemas, t);
    requests.push(ref(request));
    results.push(ref(result));
    for (const id of t.ids) mapping[id] = `#/components/schemas/${request}`;
    return { input: `#/components/schemas/${t.type}_${t.n}_input`, output: `#/components/schemas/${t.type}_${t.n}_output`, request: `#/components/schemas/${request}` };
  };
  for (const cap of registry.capabilities.values()) {
    if (!offeredIn('v2', cap)) continue;
    schemas[`capability_${cap.id}_input`] = plain(cap.def.input);
    schemas[`capability_${cap.id}_output`] = plain(cap.def.output);
    const providers = cap.providers.map((b) => b.plugin.id);
    const cost = describeCost(cap.def.cost.describe);
    const refs = add({ type: 'capability', id: cap.id, n: cap.id, ids: [cap.id, ...(cap.def.aliases ?? [])], providers, title: cap.def.title, cost, texts: specTexts(cap.def) });
    targets.push({ type: 'capability', id: cap.id, aliases: cap.def.aliases ?? [], cost, providers, ...refs });
  }
  for (const ep of registry.endpoints.values()) {
    if (!offeredIn('v2', ep)) continue;
    const n = ep.id.replace('.', '__');
    schemas[`endpoint_${n}_input`] = plain(ep.def.input);
    schemas[`endpoint_${n}_output`] = plain(ep.def.output);
    const cost = describeCost(ep.def.cost.describe);
    const refs = add({ type: 'endpoint', id: ep.id, n, ids: [ep.id], providers: [ep.plugin.id], title: ep.def.title, cost, texts: specTexts(ep.def) });
    targets.push({ type: 'endpoint', id: ep.id, cost, ...refs });
  }
  const secured = { security: [{ bearerAuth: [] }] };
  const body = (schema: Json, description: string) => ({ required: true, description, ...jsonContent(schema) });
  const paging = [
    { name: 'page', in: 'query', description: 'Page (1-based, default 1).', schema: { type: 'integer', minimum: 1 } },
    { name: 'limit', in: 'query', description: 'Page size (default 50, at most 500).', schema: { type: 'integer', minimum: 1, maximum: 500 } },
  ];
  const usageFilters = [
    { name: 'objectType', in: 'query', description: 'Only calls of this kind.', schema: { enum: ['capability', 'endpoint', 'operation'] } },
    { name: 'objectId', in: 'query', description: 'Only calls of this capability, endpoint or operation id.', schema: { type: 'string' } },
    { name: 'status', in: 'query', description: '`success`, `error` or an HTTP status (e.g. 502).', schema: { type: 'string' } },
    { name: 'provider', in: 'query', description: 'Only calls served by (or last failed at) this provider.', schema: { type: 'string' } },
  ];
  const list = (item: string, description: string) => ({ type: 'object', description, required: ['items'], properties: { items: { type: 'array', items: ref(item), description: 'Newest first.' } } });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Content intelligence API — unified lane',
      version: '2.0.0',
      description: 'Capability-first interface under /api/v2 (spec §4.10) with one envelope. `POST /api/v2/run` lists one request and one result schema per capability and provider endpoint; `x-targets` indexes them with their input and output schemas.',
    },
    servers: [{ url: '/' }],
    'x-targets': targets,
    paths: {
      '/api/v2/run': {
        post: {
          operationId: 'run',
          summary: 'Run a capability or a provider endpoint',
          description: 'The body names one target; its `input` is that target\'s input schema. Credits are reserved before the run and charged only on success.',
          ...secured,
          requestBody: body({ oneOf: requests, discriminator: { propertyName: 'id', mapping } }, 'The target and its input, one schema per target (chosen by `id`).'),
          responses: { '200': { description: 'Success envelope; `data` is the output of the target named in `meta.id`.', headers: headersFor('200'), ...jsonContent({ oneOf: results }) }, ...failures() },
        },
      },
      '/api/v2/search': {
        post: { operationId: 'search', summary: 'Discover capabilities, providers and endpoints the key may use', ...secured, requestBody: body(ref('SearchRequest'), 'The query (an empty body lists everything).'), responses: responses('search_result', ref('SearchData', 'Matching entries.'), ref('SearchMeta', 'The query as understood.')) },
      },
      '/api/v2/details': {
        post: { operationId: 'details', summary: 'Schemas, cost, providers and examples of one id', ...secured, requestBody: body(ref('DetailsRequest'), 'Which entry to describe.'), responses: responses('details', DETAILS_DATA, ref('DetailsMeta', 'How the entry was described.')) },
      },
      '/api/v2/balance': { get: { operationId: 'balance', summary: 'Credits, budget and spending of the calling key', ...secured, responses: responses('balance', ref('Balance', 'The key\'s money and rate limit.'), { type: 'object', description: 'Nothing for this object.', additionalProperties: false }) } },
      '/api/v2/usage': {
        get: {
          operationId: 'usage',
          summary: "The key's usage rows, newest first",
          ...secured,
          parameters: [...usageFilters, ...paging],
          responses: responses('usage_list', list('UsageRow', 'Usage rows.'), ref('PageMeta', 'Paging.')),
        },
      },
      '/api/v2/transactions': { get: { operationId: 'transactions', summary: "The key's ledger entries, newest first", ...secured, parameters: paging, responses: responses('transaction_list', list('LedgerEntry', 'Ledger entries.'), ref('PageMeta', 'Paging.')) } },
      ...jobPaths({ secured, responses }),
      ...monitorPaths({ responses, secured, body, scrapeInput: schemas['capability_scrape_page_input'] as Json | undefined }),
      ...webhookPaths(responses),
      ...servicePaths(),
      ...adminPaths(paging, usageFilters),
      ...adminJobPaths(),
      ...adminWebhookPaths(),
      ...adminConsolePaths(paging, usageFilters),
      ...consolePaths(),
    },
    components: { securitySchemes: { ...SECURITY_SCHEMES, adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token ADMIN_TOKEN.' } }, schemas },
    security: [{ bearerAuth: [] }],
  };
}
