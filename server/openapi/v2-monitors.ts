/** The change-monitor routes of the unified lane (server/v2/monitors.ts) as OpenAPI paths. */
import type { Json } from './common.js';

/** What the v2 document lends: its envelope responses, security and request-body helpers. */
export interface V2PathKit {
  responses(object: string, data: Json, meta: Json): Json;
  secured: Json;
  body(schema: Json, description: string): Json;
  /** The scrape_page capability's input schema, when that capability is registered. */
  scrapeInput?: Json;
}

/**
 * The schema of a monitor's `options`: scrape_page's own input without `url` (the monitor's page),
 * so clients see every option a run accepts; the routes check them with the same schema. Without
 * scrape_page registered (no web plugin), any object.
 */
function scrapeOptions(scrapeInput: Json | undefined, description: string): Json {
  const input = scrapeInput as { properties?: Record<string, Json>; required?: string[] } | undefined;
  if (!input?.properties) return { type: 'object', description };
  const { url: _url, ...properties } = input.properties;
  const { required: all = [], ...rest } = input;
  const required = all.filter((r) => r !== 'url');
  return { ...rest, description, properties, ...(required.length ? { required } : {}) };
}

const webhook: Json = {
  type: ['object', 'null'],
  description: 'Where a change is reported: a signed `monitor.changed` webhook (the same signing secret and headers as job webhooks).',
  required: ['url'],
  additionalProperties: false,
  properties: { url: { type: 'string', format: 'uri', description: 'http or https URL the service POSTs to; it passes the SSRF guard.' }, metadata: { description: 'Echoed in every delivery (at most 4 KB of JSON).' } },
};

const monitorObject = (scrapeInput: Json | undefined): Json => ({
  type: 'object',
  description: 'A change monitor.',
  required: ['id', 'url', 'options', 'interval', 'webhook', 'status', 'nextRunAt', 'lastRun', 'runs', 'changes', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', description: 'Monitor id (`mon_…`).' },
    url: { type: 'string', description: 'The page watched.' },
    options: scrapeOptions(scrapeInput, 'Scrape options of every run (any scrape_page option but url); changeTracking is always added.'),
    interval: { type: 'integer', description: 'Milliseconds between runs.' },
    webhook,
    status: { enum: ['active', 'paused'], description: 'Paused monitors do not run.' },
    nextRunAt: { type: ['string', 'null'], description: 'When the next run is due (null while paused).' },
    lastRun: {
      type: ['object', 'null'],
      description: 'What the last run found (null before the first).',
      properties: {
        at: { type: 'string', description: 'When it ran.' },
        changeStatus: { type: 'string', description: '`new`, `same`, `changed` or `removed`.' },
        error: { type: 'object', description: 'Why it failed (e.g. INSUFFICIENT_CREDITS); failed runs are free.', properties: { code: { type: 'string', description: 'Failure code.' }, message: { type: 'string', description: 'What went wrong.' } } },
      },
    },
    runs: { type: 'integer', description: 'Runs so far.' },
    changes: { type: 'integer', description: 'Runs that found a change or a removal.' },
    createdAt: { type: 'string', description: 'Creation time.' },
    updatedAt: { type: 'string', description: 'Last change or run.' },
  },
});

const idParam = { name: 'id', in: 'path', required: true, description: 'Monitor id.', schema: { type: 'string' } };
const none: Json = { type: 'object', description: 'Nothing for this object.' };

/** The monitor paths. */
export function monitorPaths(kit: V2PathKit): Json {
  const { responses, secured, body } = kit;
  const monitor = monitorObject(kit.scrapeInput);
  const interval: Json = { type: 'integer', description: 'Milliseconds between runs: at least MONITOR_MIN_INTERVAL_MS (5 minutes by default), at most a week.' };
  const options = scrapeOptions(kit.scrapeInput, 'scrape_page options for every run (not url).');
  const create: Json = {
    type: 'object',
    description: 'A new monitor.',
    required: ['url', 'interval'],
    additionalProperties: false,
    properties: {
      url: { type: 'string', description: 'The page to watch.' },
      interval,
      options,
      webhook,
    },
  };
  const patch: Json = {
    type: 'object',
    description: 'Fields to change; a new interval or a resume schedules the next run one interval from now.',
    additionalProperties: false,
    properties: { interval, options, webhook, status: { enum: ['active', 'paused'], description: 'Pause or resume.' } },
  };
  return {
    '/api/v2/monitors': {
      post: {
        operationId: 'createMonitor',
        summary: 'Watch a page: a change-tracking scrape every interval (charged as one scrape each), a signed webhook when it changes',
        ...secured,
        requestBody: body(create, 'The page, the interval, scrape options and the webhook.'),
        responses: { ...responses('monitor', monitor, none), '201': (responses('monitor', monitor, none) as Record<string, Json>)['200'] },
      },
      get: {
        operationId: 'listMonitors',
        summary: "The key's monitors, newest first",
        ...secured,
        parameters: [
          { name: 'page', in: 'query', description: 'Page (1-based).', schema: { type: 'integer', minimum: 1 } },
          { name: 'limit', in: 'query', description: 'Page size (default 20, at most 100).', schema: { type: 'integer', minimum: 1, maximum: 100 } },
        ],
        responses: responses('list', { type: 'array', items: monitor, description: 'Monitors.' }, { type: 'object', description: 'Paging.', properties: { page: { type: 'integer', description: 'Page.' }, limit: { type: 'integer', description: 'Page size.' }, total: { type: 'integer', description: 'Monitors the key has.' } } }),
      },
    },
    '/api/v2/monitors/{id}': {
      get: { operationId: 'getMonitor', summary: 'One monitor (another key\'s id is a 404)', ...secured, parameters: [idParam], responses: responses('monitor', monitor, none) },
      patch: { operationId: 'updateMonitor', summary: 'Change, pause or resume a monitor', ...secured, parameters: [idParam], requestBody: body(patch, 'What to change.'), responses: responses('monitor', monitor, none) },
      delete: {
        operationId: 'deleteMonitor',
        summary: 'Delete a monitor',
        ...secured,
        parameters: [idParam],
        responses: responses('monitor', { type: 'object', description: 'The deleted id.', properties: { id: { type: 'string', description: 'Monitor id.' }, deleted: { const: true, description: 'Always true.' } } }, none),
      },
    },
  };
}
