/**
 * Change monitors in the v2 lane (issue 27 "Monitors"): `POST /monitors`, `GET /monitors`,
 * `GET|PATCH|DELETE /monitors/:id`. A monitor belongs to the key that made it; any other id is a
 * 404 that says nothing about whether it exists. Runs are charged as one scrape each.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { InputError, NotFoundError, ProviderNotAllowedError } from '../../core/errors.js';
import { Access } from '../../core/policy/access.js';
import { runValidateHook, validateInput } from '../../core/execution/validate.js';
import { runInput } from '../../core/monitors/monitor-runner.js';
import { userUrl } from '../../core/catalogue.js';
import type { SsrfGuard } from '../../core/engines/http/guard.js';
import type { MonitorStore } from '../../core/monitors/monitor-store.js';
import type { Monitor, MonitorPatch, MonitorWebhook } from '../../core/monitors/types.js';
import { ok } from './envelope.js';

const MAX_WEBHOOK_URL = 2048;
const MAX_METADATA_BYTES = 4096;
/** A week: a longer interval is better served by a scheduled job of the caller's own. */
const MAX_INTERVAL_MS = 7 * 24 * 3600 * 1000;

/** The monitor as its key sees it. */
function view(m: Monitor) {
  return {
    id: m.id,
    url: m.url,
    options: m.options,
    interval: m.intervalMs,
    webhook: m.webhook,
    status: m.status,
    nextRunAt: m.status === 'active' ? m.nextRunAt.toISOString() : null,
    lastRun: m.lastRun,
    runs: m.runs,
    changes: m.changes,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readInterval(v: unknown, minMs: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < minMs || v > MAX_INTERVAL_MS) {
    throw new InputError(`Invalid input: 'interval' must be a whole number of milliseconds from ${minMs} to ${MAX_INTERVAL_MS}.`, { details: { field: 'interval' } });
  }
  return v;
}

function readWebhook(v: unknown): MonitorWebhook | null {
  if (v === null) return null;
  const field = { details: { field: 'webhook' } };
  if (!isObject(v)) throw new InputError("Invalid input: 'webhook' must be an object with a 'url'.", field);
  const { url, metadata, ...rest } = v;
  if (Object.keys(rest).length) throw new InputError(`Invalid input: 'webhook' has an unknown field '${Object.keys(rest)[0]}'.`, field);
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' && url.length <= MAX_WEBHOOK_URL ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) throw new InputError("Invalid input: 'webhook.url' must be an http or https URL.", { details: { field: 'webhook.url' } });
  if (metadata !== undefined && JSON.stringify(metadata).length > MAX_METADATA_BYTES) {
    throw new InputError(`Invalid input: 'webhook.metadata' must be at most ${MAX_METADATA_BYTES} bytes of JSON.`, { details: { field: 'webhook.metadata' } });
  }
  return metadata === undefined ? { url: parsed.href } : { url: parsed.href, metadata };
}

/** Registers the monitor routes. */
export function monitorRoutes(app: FastifyInstance, c: DependencyContainer): void {
  const registry = c.resolve(TOKENS.Registry);
  const store: MonitorStore = c.resolve(TOKENS.Monitors);
  const settings = c.resolve(TOKENS.Settings);

  /** Checks that the key may scrape and that the scrape options are valid, as a run would. */
  const checkScrape = (req: FastifyRequest, m: { id: string; url: string; options: Record<string, unknown> }) => {
    const target = registry.resolve('capability', 'scrape_page');
    if (!target || target.type !== 'capability') throw new NotFoundError('Unknown capability: scrape_page');
    const cap = target.capability;
    if (!new Access(req.call.key!.policy, registry.defaultPolicy).capability(cap)) throw new ProviderNotAllowedError();
    const input = runInput(m);
    validateInput(cap.input, input, cap.def.messages);
    runValidateHook(cap.def.validate, input, cap.id, req.log);
  };

  /**
   * The SSRF guard's 400 for a page or webhook URL that resolves to a private, loopback or
   * metadata address (unless ALLOW_PRIVATE_NETWORK / ALLOW_HOSTS allow it, as for a scrape):
   * every run would be refused, so the monitor is refused now. A name that does not resolve today
   * is left to the runs (each run and each delivery is checked again).
   */
  const checkReachable = async (raw: string) => {
    const guard = (c.resolve(TOKENS.Engines).http as { guard?: SsrfGuard }).guard;
    if (!guard) return;
    const url = guard.checkUrl(userUrl(raw));
    if (guard.exempt(url.hostname)) return;
    try {
      await guard.checkHost(url.hostname);
    } catch (err) {
      if (err instanceof InputError) throw err;
    }
  };

  const owned = async (req: FastifyRequest): Promise<Monitor> => {
    req.call.target('operation', 'monitors');
    const { id } = req.params as { id: string };
    const m = await store.get(req.call.key!.id, id);
    if (!m) throw new NotFoundError('Monitor not found');
    return m;
  };

  app.post('/monitors', async (req, reply) => {
    req.call.target('operation', 'monitors');
    const body = req.body;
    if (!isObject(body)) throw new InputError("Invalid input: body must be an object with 'url' and 'interval'.");
    const { url, interval, webhook, options, ...rest } = body;
    if (Object.keys(rest).length) throw new InputError(`Invalid input: unknown field '${Object.keys(rest)[0]}'; scrape options go in 'options'.`, { details: { field: Object.keys(rest)[0]! } });
    if (typeof url !== 'string' || url.trim() === '') throw new InputError("Invalid input: 'url' is required and must be a non-empty string.", { details: { field: 'url' } });
    if (options !== undefined && !isObject(options)) throw new InputError("Invalid input: 'options' must be an object of scrape options.", { details: { field: 'options' } });
    if (isObject(options) && 'url' in options) throw new InputError("Invalid input: 'options.url' is not allowed; the monitor's page is 'url'.", { details: { field: 'options.url' } });
    const intervalMs = readInterval(interval, settings.monitorMinIntervalMs);
    const hook = webhook === undefined ? null : readWebhook(webhook);
    const opts = (options as Record<string, unknown> | undefined) ?? {};
    checkScrape(req, { id: 'mon_new', url: url.trim(), options: opts });
    await checkReachable(url);
    if (hook) await checkReachable(hook.url);
    const keyId = req.call.key!.id;
    if ((await store.countFor(keyId)) >= settings.monitorMaxPerKey) {
      throw new InputError(`Too many monitors: a key may have at most ${settings.monitorMaxPerKey}. Delete one first.`);
    }
    const m = await store.create({ keyId, url: url.trim(), options: opts, intervalMs, webhook: hook });
    reply.code(201);
    return ok(req, 'monitor', view(m));
  });

  app.get('/monitors', async (req) => {
    req.call.target('operation', 'monitors');
    const q = req.query as Record<string, string | undefined>;
    const page = q.page === undefined ? 1 : Number(q.page);
    const limit = q.limit === undefined ? 20 : Number(q.limit);
    if (!Number.isInteger(page) || page < 1) throw new InputError("Invalid input: 'page' must be a positive integer.", { details: { field: 'page' } });
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new InputError("Invalid input: 'limit' must be an integer between 1 and 100.", { details: { field: 'limit' } });
    const { monitors, total } = await store.list(req.call.key!.id, page, limit);
    return ok(req, 'list', monitors.map(view), { page, limit, total });
  });

  app.get('/monitors/:id', async (req) => ok(req, 'monitor', view(await owned(req))));

  app.patch('/monitors/:id', async (req) => {
    const m = await owned(req);
    const body = req.body;
    if (!isObject(body)) throw new InputError('Invalid input: body must be an object.');
    const { interval, webhook, options, status, ...rest } = body;
    if (Object.keys(rest).length) throw new InputError(`Invalid input: '${Object.keys(rest)[0]}' cannot be changed; 'options', 'interval', 'webhook' and 'status' can.`, { details: { field: Object.keys(rest)[0]! } });
    const patch: MonitorPatch = {};
    if (interval !== undefined) patch.intervalMs = readInterval(interval, settings.monitorMinIntervalMs);
    if (webhook !== undefined) patch.webhook = readWebhook(webhook);
    if (patch.webhook) await checkReachable(patch.webhook.url);
    if (status !== undefined) {
      if (status !== 'active' && status !== 'paused') throw new InputError("Invalid input: 'status' must be one of: active, paused.", { details: { field: 'status' } });
      patch.status = status;
    }
    if (options !== undefined) {
      if (!isObject(options) || 'url' in options) throw new InputError("Invalid input: 'options' must be an object of scrape options without 'url'.", { details: { field: 'options' } });
      checkScrape(req, { id: m.id, url: m.url, options });
      patch.options = options;
    }
    const updated = await store.update(m.keyId, m.id, patch);
    if (!updated) throw new NotFoundError('Monitor not found');
    return ok(req, 'monitor', view(updated));
  });

  app.delete('/monitors/:id', async (req) => {
    const m = await owned(req);
    await store.delete(m.keyId, m.id);
    return ok(req, 'monitor', { id: m.id, deleted: true });
  });
}
