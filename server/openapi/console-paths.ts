/**
 * OpenAPI paths of what issue 26 added: the admin API's stats, rotation, policy report,
 * providers, engines, files and usage across keys, and the console's own routes (the page, its
 * bundle and its cookie session).
 */
import { REQUEST_ID_HEADER, jsonContent, ref, type Json } from './common.js';

const text = (description: string) => ({ type: 'string', description });
const int = (description: string) => ({ type: 'integer', description });
const error = (description: string) => ({ description, headers: REQUEST_ID_HEADER, ...jsonContent({ type: 'object', description: 'Error.', required: ['error'], properties: { error: text('Human-readable description.'), code: text('Failure code.') } }) });
const ok = (description: string, schema: Json) => ({ description, headers: REQUEST_ID_HEADER, ...jsonContent({ description, ...schema }) });
const obj = (description: string, properties: Json, required: string[] = Object.keys(properties)) => ({ type: 'object', description, required, properties });
const items = (description: string, item: Json) => obj(description, { items: { type: 'array', description, items: item } });
const query = (name: string, description: string, schema: Json = { type: 'string' }) => ({ name, in: 'query', required: false, description, schema });

const counts = { calls: int('Calls in the bucket.'), errors: int('Calls answered with status 400 or above.'), credits: int('Credits charged.') };
const bucket = obj(
  'One time bucket.',
  {
    start: text('Start of the bucket (ISO 8601, UTC).'),
    ...counts,
    p50Ms: { type: ['integer', 'null'], description: 'Median latency in ms; null for an empty bucket.' },
    p95Ms: { type: ['integer', 'null'], description: '95th-percentile latency in ms; null for an empty bucket.' },
    groups: { type: 'array', description: 'With groupBy: the bucket split by that field, most calls first.', items: obj('One group.', { key: text('The lane, target id, provider (empty: none), status or key id.'), ...counts }) },
  },
  ['start', 'calls', 'errors', 'credits', 'p50Ms', 'p95Ms'],
);
const decision = {
  allowed: { type: 'boolean', description: 'What the key gets (the decision the API applies).' },
  by: { type: 'string', enum: ['key', 'deployment', 'default'], description: "Whose rule decided: the key's, the deployment default's, or none (allowed by default)." },
  rule: text('The id the deciding rule names (endpoint, provider, capability or *); absent for the default.'),
};

/** The admin routes the console needs (server/admin/stats.ts, insight.ts, routes.ts). */
export function adminConsolePaths(paging: Json[], usageFilters: Json[]): Json {
  const admin = { tags: ['admin'], security: [{ adminToken: [] }] };
  const idParam = [{ name: 'id', in: 'path', required: true, description: 'Key id.', schema: { type: 'string' } }];
  const denied = { '401': error('Missing or wrong admin token.') };
  return {
    '/admin/stats': {
      get: {
        ...admin,
        operationId: 'adminStats',
        summary: 'Calls, errors, credits and latency over time, aggregated in the database',
        parameters: [
          query('from', 'Start (ISO 8601; default 24 hours before `to`).'),
          query('to', 'End, exclusive (ISO 8601; default now).'),
          query('bucket', 'Bucket width (default hour).', { type: 'string', enum: ['hour', 'day'] }),
          query('groupBy', 'Split each bucket by this field (capability: the call target).', { type: 'string', enum: ['lane', 'capability', 'provider', 'status', 'key'] }),
        ],
        responses: {
          '200': ok('Every bucket of the range, empty ones included.', obj('Stats.', { from: text('Start used.'), to: text('End used.'), bucket: text('Bucket width.'), groupBy: { type: ['string', 'null'], description: 'Grouping used, or null.' }, buckets: { type: 'array', description: 'Buckets, oldest first.', items: bucket } })),
          '400': error('Bad from, to, bucket or groupBy, or more than 4000 buckets.'),
          ...denied,
        },
      },
    },
    '/admin/keys/{id}/rotate': {
      post: { ...admin, operationId: 'adminRotateKey', summary: 'Give a key a new secret (shown once); the old one is refused from then on', parameters: idParam, responses: { '200': { description: 'The key; `key` is the new plaintext secret, shown this once.', headers: REQUEST_ID_HEADER, ...jsonContent(ref('Key')) }, ...denied, '404': error('No such key.') } },
    },
    '/admin/keys/{id}/policy': {
      get: {
        ...admin,
        operationId: 'adminKeyPolicy',
        summary: 'Every provider and capability as the key sees it, with the rule that decided',
        parameters: idParam,
        responses: {
          '200': ok('The report.', obj('Policy report.', {
            keyId: text('Key id.'),
            policy: ref('Policy', "The key's own rules."),
            defaultPolicy: ref('Policy', 'The deployment default.'),
            providers: { type: 'array', description: 'Every provider.', items: obj('A provider.', { id: text('Provider id.'), title: text('Title.'), configured: { type: 'boolean', description: 'Whether its settings are complete.' }, ...decision }, ['id', 'title', 'configured', 'allowed', 'by']) },
            capabilities: { type: 'array', description: 'Every capability.', items: obj('A capability.', { id: text('Capability id.'), title: text('Title.'), ...decision, providers: { type: 'array', description: 'Its providers in order.', items: text('Provider id.') }, allowedProviders: { type: 'array', description: 'The providers the key may use for it.', items: text('Provider id.') } }, ['id', 'title', 'allowed', 'by', 'providers', 'allowedProviders']) },
          })),
          ...denied,
          '404': error('No such key.'),
        },
      },
    },
    '/admin/providers': {
      get: {
        ...admin,
        operationId: 'adminProviders',
        summary: 'Providers: configured or not, missing setting names, calls and errors of the last 24 hours, fallbacks',
        responses: {
          '200': ok('Providers.', items('Providers.', obj('A provider.', {
            id: text('Provider id.'), title: text('Title.'), managed: { type: 'boolean', description: 'Runs on this machine (no upstream).' }, configured: { type: 'boolean', description: 'Whether its settings are complete.' },
            missingSettings: { type: 'array', description: 'Environment variables it lacks (names only).', items: text('Variable name.') },
            capabilities: { type: 'array', description: 'Capabilities it serves.', items: text('Capability id.') },
            callsLastDay: int('Calls it served or failed in the last 24 hours.'), errorsLastDay: int('Of those, answered with status 400 or above.'),
            errorRateLastDay: { type: 'number', description: 'errorsLastDay / callsLastDay (0 without calls).' }, fallbacksSinceStart: int('Times it failed and the next provider was tried, on this instance since start.'),
          }))),
          ...denied,
        },
      },
    },
    '/admin/engines': {
      get: { ...admin, operationId: 'adminEngines', summary: 'Figures of the engines already started (those of /metrics)', responses: { '200': ok('Engines.', items('Engines.', { type: 'object', description: 'One engine: `engine` and its figures (queue_depth, active_jobs, pool_size, jobs, restarts, recycles, kills, crashes, where it reports them).', required: ['engine'], properties: { engine: text('Engine name.') }, additionalProperties: { type: 'number', description: 'A figure.' } })), ...denied } },
    },
    '/admin/files': {
      get: { ...admin, operationId: 'adminListFiles', summary: 'Produced files this instance holds (no download links)', responses: { '200': ok('Files.', items('Files, latest expiry first.', obj('A file.', { id: text('File id.'), contentType: text('Media type.'), size: int('Bytes.'), expiresAt: text('Expiry (ISO 8601).') }))), ...denied } },
    },
    '/admin/usage': {
      get: {
        ...admin,
        operationId: 'adminUsage',
        summary: 'Usage rows of every key (or one), newest first',
        parameters: [query('keyId', 'Only this key.'), ...usageFilters, ...paging],
        responses: { '200': ok('Usage rows.', obj('A page.', { items: { type: 'array', description: 'Newest first.', items: ref('UsageRow') }, page: int('Page returned.'), limit: int('Page size used.') })), '400': error('Invalid filter.'), ...denied },
      },
    },
  };
}

/** The console's own routes (server/console/routes.ts); `/console/app/*` and `/console/api/*` are its page paths and its proxy. */
export function consolePaths(): Json {
  const tags = ['console'];
  const open = { tags, security: [] };
  const session = obj('The session.', { role: { type: 'string', enum: ['admin', 'key'], description: 'Who signed in.' }, csrf: text('Token to send as X-CSRF-Token on state-changing calls.'), keyId: { type: ['string', 'null'], description: 'Key id of a key holder.' }, name: { type: ['string', 'null'], description: 'Key name of a key holder.' }, idleSeconds: int('Idle time after which the session ends.') });
  const page = { description: 'The console page (HTML, strict Content-Security-Policy).', headers: REQUEST_ID_HEADER };
  return {
    '/': { get: { ...open, operationId: 'frontPage', summary: 'Redirects to the console', responses: { '302': { description: 'To /console.', headers: REQUEST_ID_HEADER } } } },
    '/console': { get: { ...open, operationId: 'console', summary: 'The console (sign-in, admin and key-holder pages)', responses: { '200': page } } },
    '/console/': { get: { ...open, operationId: 'consoleSlash', summary: 'The console', responses: { '200': page } } },
    '/console/assets/{name}': {
      get: { ...open, operationId: 'consoleAsset', summary: 'The console bundle (app.js, app.css)', parameters: [{ name: 'name', in: 'path', required: true, description: 'app.js or app.css.', schema: { type: 'string' } }], responses: { '200': { description: 'The file (gzip when accepted).', headers: REQUEST_ID_HEADER }, '304': { description: 'Not modified (ETag).', headers: REQUEST_ID_HEADER }, '404': error('No such file.') } },
    },
    '/console/session': {
      get: { ...open, operationId: 'consoleSession', summary: 'The session of the cookie, or { role: null }', responses: { '200': ok('The session, or role null when not signed in.', { type: 'object', description: 'The session.', properties: session.properties }) } },
      post: {
        ...open,
        operationId: 'consoleSignIn',
        summary: 'Sign in with ADMIN_TOKEN or an API key; sets the httpOnly, SameSite=Strict session cookie',
        requestBody: { required: true, description: 'Credentials.', ...jsonContent(obj('Credentials.', { role: { type: 'string', enum: ['admin', 'key'], description: 'Admin or key holder.' }, secret: text('The admin token or the API key.') })) },
        responses: { '200': ok('Signed in.', session), '400': error('Bad role or no secret.'), '401': error('Wrong token or key.'), '403': error('Sent from another site.'), '429': { ...error('Five failed sign-ins from this address in the last minute.'), headers: { ...REQUEST_ID_HEADER, 'Retry-After': { description: 'Seconds until sign-in is allowed again.', schema: { type: 'integer' } } } } },
      },
      delete: { ...open, operationId: 'consoleSignOut', summary: 'Sign out (needs X-CSRF-Token)', responses: { '200': ok('Signed out.', obj('Done.', { signedOut: { type: 'boolean', description: 'Always true.' } })), '403': error('Missing or wrong CSRF token.') } },
    },
  };
}
