/**
 * Hand-written component schemas of the unified lane around the registry's own: the envelope
 * (spec §2.3), discovery (`search`, `details`), the key's account views (`balance`, `usage`,
 * `transactions`) and the admin API. They mirror server/v2/*.ts and server/admin/*.ts, and the
 * OpenAPI test validates real responses against them.
 */
import { ERROR_CODES } from '../../core/errors.js';
import { REQUEST_SOURCE, ref, type Json } from './common.js';

const str = (description: string, extra: Json = {}) => ({ type: 'string', description, ...extra });
const int = (description: string, extra: Json = {}) => ({ type: 'integer', description, ...extra });
const bool = (description: string) => ({ type: 'boolean', description });
const strs = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const nullable = (type: string, description: string, extra: Json = {}) => ({ type: [type, 'null'], description, ...extra });
const obj = (description: string, properties: Record<string, Json>, required = Object.keys(properties)) => ({ type: 'object', description, required, properties });
const date = (description: string) => str(description, { format: 'date-time' });

const ENTRY_TYPE = { enum: ['capability', 'provider', 'endpoint'] };
const JSON_SCHEMA = (description: string) => ({ type: 'object', additionalProperties: true, description });

/** The envelope's `success`, `requestId` and `object` of a success (spec §2.3). */
export function envelopeOk(object: string, data: Json, meta: Json, description = 'Success envelope (spec §2.3).'): Json {
  return obj(description, {
    success: { const: true, description: 'Always true on success.' },
    requestId: str('Id of this request (also in X-Request-Id and the usage log).'),
    object: { const: object, description: 'What `data` holds.' },
    data,
    meta,
  });
}

/** Paging fields of `meta` in list answers. */
const PAGE_META = obj('Paging of this answer.', { page: int('Page returned (1-based).', { minimum: 1 }), limit: int('Page size used.', { minimum: 1 }), count: int('Items on this page.', { minimum: 0 }) });

const COST = {
  description: 'What a successful call costs (credits are charged only on success).',
  oneOf: [
    obj('A fixed price per successful request.', { kind: { const: 'flat', description: 'Cost rule kind.' }, credits: int('Credits per request.', { minimum: 0 }) }),
    obj('A price per started block of units.', { kind: { const: 'per_unit', description: 'Cost rule kind.' }, unit: str('What is counted, e.g. reviews.'), credits: int('Credits per block.'), per: int('Units per block.'), note: str('The rule in words.') }, ['kind', 'unit', 'credits', 'per']),
    obj('A price per started block of output megabytes.', { kind: { const: 'per_output_mb', description: 'Cost rule kind.' }, credits: int('Credits per block.'), perMb: int('Megabytes per block.'), maxMb: int('Largest output, in MB.') }),
    obj('A rule only words describe.', { kind: { const: 'custom', description: 'Cost rule kind.' }, note: str('The rule in words.') }),
  ],
};

const EXAMPLE = obj('An example call.', { title: str('What the example shows.'), input: { description: 'Input of the call (matches the input schema).' }, output: { description: 'What the call answers, when the example declares it.' } }, ['title', 'input']);

const CAPABILITY_DETAILS = obj(
  'A capability (a job providers may serve).',
  {
    type: { const: 'capability', description: 'Entry type.' },
    id: str('Capability id.'),
    title: str('Short title.'),
    summary: str('What it does.'),
    tags: strs('Search keywords.'),
    aliases: strs('Other ids that resolve to it (e.g. crawl → crawl_site).'),
    input: JSON_SCHEMA('JSON Schema of the input.'),
    output: nullable('object', 'JSON Schema of the output, or null when the output is free-form.', { additionalProperties: true }),
    cost: ref('Cost', 'What a successful call costs.'),
    providers: { type: 'array', description: 'Providers that serve it, in the order they are tried.', items: obj('One provider of the capability.', { id: str('Provider id.'), endpoint: str('Endpoint that serves it.'), configured: bool('The provider has its settings (API key…).'), allowed: bool("The key's policy lets it use this provider.") }) },
    examples: { type: 'array', items: ref('Example'), description: 'Example calls.' },
    related: obj('Only with includeRelated: providers, their endpoints and capabilities sharing a tag.', { providers: { type: 'array', description: 'Visible providers.', items: obj('A provider.', { id: str('Provider id.'), title: str('Title.'), configured: bool('Has its settings.') }) }, endpoints: strs('Visible endpoints that serve it.'), capabilities: strs('Visible capabilities sharing a tag.') }),
  },
  ['type', 'id', 'title', 'summary', 'tags', 'aliases', 'input', 'output', 'cost', 'providers', 'examples'],
);

const ENDPOINT_DETAILS = obj(
  "A provider endpoint (one provider's own operation).",
  {
    type: { const: 'endpoint', description: 'Entry type.' },
    id: str('Endpoint id `<provider>.<operation>`.'),
    provider: str('Provider id.'),
    title: str('Short title.'),
    summary: str('What it does.'),
    tags: strs('Search keywords.'),
    input: JSON_SCHEMA('JSON Schema of the input.'),
    output: JSON_SCHEMA('JSON Schema of the output.'),
    cost: ref('Cost', 'What a successful call costs.'),
    configured: bool('The provider has its settings (API key…).'),
    allowed: bool("The key's policy lets it call this endpoint."),
    capabilities: strs('Capabilities it serves.'),
    examples: { type: 'array', items: ref('Example'), description: 'Example calls.' },
    related: obj('Only with includeRelated: its provider, capabilities and sibling endpoints.', { provider: obj('The provider.', { id: str('Provider id.'), title: str('Title.'), configured: bool('Has its settings.') }), capabilities: strs('Visible capabilities it serves.'), endpoints: strs("The provider's other visible endpoints.") }),
  },
  ['type', 'id', 'provider', 'title', 'summary', 'tags', 'input', 'output', 'cost', 'configured', 'allowed', 'capabilities', 'examples'],
);

const PROVIDER_DETAILS = obj(
  'A provider plugin.',
  {
    type: { const: 'provider', description: 'Entry type.' },
    id: str('Provider id.'),
    title: str('Short title.'),
    summary: str('What it offers.'),
    tags: strs('Search keywords.'),
    managed: bool('Runs on this machine and needs no key.'),
    configured: bool('Has every required setting.'),
    missingSettings: strs('Environment variables an operator still has to set (names only).'),
    settings: { type: 'array', description: 'Settings it reads.', items: obj('One setting.', { env: str('Environment variable.'), description: str('What it sets.'), required: bool('Needed before the provider is usable.') }) },
    endpoints: strs('Its endpoints the key may see.'),
    related: obj('Only with includeRelated: capabilities it serves and its endpoints.', { capabilities: strs('Visible capabilities it serves.'), endpoints: strs('Visible endpoints.') }),
  },
  ['type', 'id', 'title', 'summary', 'tags', 'managed', 'configured', 'missingSettings', 'settings', 'endpoints'],
);

const USAGE_ROW = obj('One call as recorded.', {
  requestId: str('Request id.'),
  keyId: str('Key that made the call.'),
  lane: { enum: ['v1', 'v2', 'mcp'], description: 'Lane the call came through.' },
  objectType: { enum: ['capability', 'endpoint', 'operation'], description: 'What was called: a capability, an endpoint, or an account/discovery operation.' },
  objectId: str('Id of what was called.'),
  provider: nullable('string', 'Provider that served (or last failed) the call.'),
  status: int('HTTP status answered.'),
  code: nullable('string', 'Failure code, null on success.'),
  credits: int('Credits charged.', { minimum: 0 }),
  latencyMs: int('Time to answer, in ms.', { minimum: 0 }),
  requestSource: str('Where the request came from (spec §2.1).'),
  createdAt: date('When the call was made.'),
  units: { type: ['object', 'null'], additionalProperties: { type: 'number' }, description: 'What the call produced as its provider reported it (e.g. pages, reviews, model tokens), or null.' },
});

const LEDGER_ENTRY = obj('One money movement.', {
  id: int('Entry id (increasing).'),
  requestId: nullable('string', 'Request that caused it (charges), else null.'),
  kind: { enum: ['grant', 'charge', 'topup', 'deduct'], description: 'grant: credits given at creation; charge: a paid call; topup / deduct: an operator adjustment.' },
  amount: int('Credits added (positive) or removed (negative).'),
  balanceAfter: int('Balance after this entry.'),
  reason: nullable('string', "The operator's reason (adjustments)."),
  target: nullable('string', 'Capability or endpoint charged.'),
  createdAt: date('When it happened.'),
});

const BALANCE = obj('Credits, budget and rate limit of the calling key.', {
  keyId: str('Key id.'),
  name: str('Key name.'),
  credits: int('Credits spendable now (requests in flight already taken out).', { minimum: 0 }),
  reserved: int('Credits held by requests in flight.', { minimum: 0 }),
  budget: nullable('integer', 'Monthly spending cap, or null for none.'),
  spent: int('Credits charged since periodStart.', { minimum: 0 }),
  budgetRemaining: nullable('integer', 'Budget left this month (budget − spent − reserved, at least 0), or null without a budget.'),
  periodStart: date('Start of the current budget month (UTC).'),
  periodEnd: date('End of the current budget month (UTC).'),
  rateLimit: obj('The per-minute rate limit.', { limit: int('Requests per minute.'), remaining: nullable('integer', 'Requests left in this minute.'), windowSeconds: int('Window length (60).') }),
});

const POLICY = {
  type: 'object',
  description: 'Which providers, endpoints and capabilities the key may use; the most specific rule wins (exact id, then provider, then `*`, then the deployment default).',
  properties: { allow: strs('Ids allowed: a provider, an endpoint, a capability or `*`.'), block: strs('Ids blocked, same forms.') },
};

const KEY = {
  type: 'object',
  description: 'An API key as the operator sees it (never the plaintext, except `key` once at creation).',
  properties: {
    id: str('Key id.'),
    key: str('The plaintext key: only in the creation answer, never again.'),
    name: str('Name.'),
    prefix: str('First characters of the key, to recognise it.'),
    active: bool('Inactive keys get 401.'),
    credits: int('Credits spendable now.'),
    reserved: int('Credits held by requests in flight.'),
    budget: nullable('integer', 'Monthly spending cap, or null.'),
    spent: int('Credits charged this month.'),
    periodStart: date('Start of the budget month.'),
    rateLimitPerMinute: int('Requests per minute.'),
    policy: { ...POLICY, type: ['object', 'null'] },
    createdAt: date('Creation time.'),
    updatedAt: date('Last change.'),
  },
};

/** Component schemas of the unified lane that do not come from the registry. */
export const V2_COMPONENTS: Json = {
  Failure: obj('Failure envelope (spec §2.3, §7.2).', {
    success: { const: false, description: 'Always false on failure.' },
    requestId: str('Id of this request.'),
    error: str('Human-readable description: the spec text of the failure.'),
    code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Stable failure code (README "Errors" table).' },
    details: { type: 'object', additionalProperties: true, description: 'The offending `field` of an INVALID_INPUT, or `{ name, value, traceback }` of a CODE_EXECUTION_ERROR; absent otherwise.' },
  }, ['success', 'requestId', 'error', 'code']),
  RequestSource: REQUEST_SOURCE,
  RunOptions: { type: 'object', description: 'Options of the run.', properties: { include_native: bool("Include the provider's raw payload in meta.native (default false).") } },
  Fallback: obj('A provider tried before the one that served.', { provider: str('Provider id.'), code: str('Failure code it gave.') }),
  Cost: COST,
  Example: EXAMPLE,
  SearchRequest: { type: 'object', description: 'Discovery query.', properties: { query: str('Keywords matched against ids, titles, tags and summaries; empty lists everything.', { maxLength: 1000 }), prompt: str('Same as query (used when query is absent), e.g. a sentence from an agent.', { maxLength: 1000 }), type: { ...ENTRY_TYPE, description: 'Only entries of this type.' }, limit: int('Most items to return (default 20).', { minimum: 1, maximum: 100 }) } },
  SearchData: obj('Matching entries, best first.', { items: { type: 'array', description: 'Entries the key may use.', items: obj('One entry.', { type: { ...ENTRY_TYPE, description: 'Entry type.' }, id: str('Id to pass to details or run.'), title: str('Short title.'), summary: str('What it does.'), tags: strs('Search keywords (aliases and served capabilities included).'), configured: bool('Usable now: a configured provider exists.'), score: int('Match score (0 when listing everything).') }) } }),
  SearchMeta: obj('The query as understood.', { query: str('Query used.'), type: { ...ENTRY_TYPE, type: ['string', 'null'], enum: ['capability', 'provider', 'endpoint', null], description: 'Type filter, or null.' }, count: int('Items returned.') }),
  DetailsRequest: obj('Which entry to describe.', { id: str('Capability id or alias, endpoint id or provider id.', { minLength: 1 }), type: { ...ENTRY_TYPE, description: 'Entry type, when an id could be several (a provider and a capability may share a name).' }, includeRelated: bool('Add related providers, endpoints and capabilities (default false).') }, ['id']),
  CapabilityDetails: CAPABILITY_DETAILS,
  EndpointDetails: ENDPOINT_DETAILS,
  ProviderDetails: PROVIDER_DETAILS,
  DetailsMeta: obj('How the entry was described.', { includeRelated: bool('Whether related entries were added.') }),
  Balance: BALANCE,
  UsageRow: USAGE_ROW,
  LedgerEntry: LEDGER_ENTRY,
  PageMeta: PAGE_META,
  Policy: POLICY,
  Key: KEY,
};

/** The `data` of `details`: one of three shapes, told apart by `type`. */
export const DETAILS_DATA = {
  description: 'The entry, by type.',
  oneOf: [ref('CapabilityDetails'), ref('EndpointDetails'), ref('ProviderDetails')],
  discriminator: { propertyName: 'type', mapping: { capability: '#/components/schemas/CapabilityDetails', endpoint: '#/components/schemas/EndpointDetails', provider: '#/components/schemas/ProviderDetails' } },
};
