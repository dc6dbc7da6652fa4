/**
 * buildServer(): the Fastify app with root hooks (request id, health) and the lanes as
 * encapsulated scopes (design: server/app.ts). Listening and shutdown live in start.ts.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Services } from '../core/container.js';
import { TOKENS } from '../core/tokens.js';
import { v1Routes } from './v1/routes.js';
import { v2Routes } from './v2/routes.js';
import { adminRoutes } from './admin/routes.js';
import { consoleRoutes } from './console/routes.js';
import { fileRoutes } from './files.js';
import { openApiRoutes } from './openapi/routes.js';
import { settingsReferenceRoutes } from './settings-reference.js';
import { installBodyLimits } from './hooks/body-limits.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import { wireMetrics } from './metrics/wiring.js';
import { laneOf } from './metrics/service-metrics.js';
import { installJsonDepthLimit } from './hooks/json-depth.js';
import { installKeyInFlightLimit } from './hooks/key-in-flight.js';
import { installKeyRefusalPace } from './hooks/key-refusal-pace.js';
import { installJsonBodyParser } from './body/json-body-parser.js';
import { lazySchemaCompilers } from './lazy-schema-compilers.js';

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: { method: string; url: string }[];
    /** True once shutdown has begun: the API lanes answer new requests with SHUTTING_DOWN. */
    isDraining: () => boolean;
    /** Requests received and not yet answered (or abandoned): shutdown waits for none. */
    inFlight: () => number;
    /** This instance's Prometheus metrics (served at /metrics or on METRICS_PORT). */
    metrics: ServiceMetrics;
  }
}

// Random bytes are drawn 4 KiB at a time: one system call per 341 request ids, not one each.
const ID_BYTES = 12;
let idPool = Buffer.alloc(0);
let idOffset = 0;

/** Request ids: `req_` + 12 random bytes (16 base64url characters), unique across instances. */
export function newRequestId(): string {
  if (idOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(4092);
    idOffset = 0;
  }
  const id = idPool.toString('base64url', idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return `req_${id}`;
}

/** Builds the app around a service graph. */
export async function buildServer(services: Services, opts: { isDraining: () => boolean }): Promise<FastifyInstance> {
  const c = services.container;
  const settings = services.settings;
  const logger = c.resolve(TOKENS.Logger);
  const app = Fastify({
    loggerInstance: logger,
    // Per-request start/end lines only at debug: the usage log already records every call.
    logController: new LogController({ disableRequestLogging: settings.logLevel !== 'debug' && settings.logLevel !== 'trace' }),
    genReqId: newRequestId,
    requestIdHeader: false,
    bodyLimit: settings.bodyLimitBytes,
    // Requests that still arrive on open connections while closing get the lane's own 503
    // (SHUTTING_DOWN in its envelope, with a request id) from the API scope, not Fastify's body.
    return503OnClosing: false,
    forceCloseConnections: false,
    schemaController: lazySchemaCompilers(),
  });

  // Every route as registered, so a test can check each one is documented.
  const routes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push({ method, url: r.url });
  });
  app.decorate('registeredRoutes', routes);
  app.decorate('isDraining', opts.isDraining);
  // Before any route is registered: each route's body limit is set as it is (issue 18 finding 3).
  // One budget with the HTTP engine's URL downloads (issue 24): both are bytes arriving at once.
  const budget = c.resolve(TOKENS.BytesInFlight);
  // First of the preParsing hooks: a key past its requests in progress takes no bytes of the budget.
  installKeyInFlightLimit(app as unknown as FastifyInstance, settings);
  installBodyLimits(app as unknown as FastifyInstance, settings, budget);
  installJsonDepthLimit(app as unknown as FastifyInstance);
  // A root onSend hook: it runs before the lanes' own, so a paced refusal's usage row shows the wait.
  installKeyRefusalPace(app as unknown as FastifyInstance, settings);
  // Large JSON bodies are parsed off this thread (issue 24); the compute pool starts on first use.
  installJsonBodyParser(app as unknown as FastifyInstance, () => c.resolve(TOKENS.Engines).compute, settings.jsonOffThreadBytes);

  let inFlight = 0;
  app.decorate('inFlight', () => inFlight);
  const registry = c.resolve(TOKENS.Registry);
  const metrics = new ServiceMetrics({
    engines: c.resolve(TOKENS.Engines),
    bodyBytesInFlight: () => budget.inUse,
    inFlight: () => inFlight,
    knownTarget: (type, id) => registry.resolve(type, id) !== undefined,
  });
  app.decorate('metrics', metrics);
  const jobs = c.resolve(TOKENS.Jobs);
  metrics.jobGauges(() => jobs.gauges());
  // Root preHandler: runs after the lanes' authentication, before any work. Journals the call
  // so a SIGKILL cannot lose its usage row (core/usage/journal.ts).
  const usage = c.resolve(TOKENS.Usage);
  app.addHook('preHandler', async (req) => {
    const key = req.call?.key;
    if (!key) return;
    const lane = laneOf(req.url);
    if (lane !== 'v1' && lane !== 'v2' && lane !== 'mcp') return;
    usage.begin({ requestId: req.id, keyId: key.id, lane, path: req.url.split('?')[0]!, startedAt: Date.now() });
  });
  wireMetrics(app as unknown as FastifyInstance, {
    metrics,
    usage: c.resolve(TOKENS.Usage),
    executor: c.resolve(TOKENS.Executor),
    adminToken: settings.adminToken,
    separatePort: settings.metricsPort !== undefined,
  });
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
    // While draining, every answer closes its connection so keep-alive clients reconnect
    // elsewhere; requests arriving then are not waited for (the API lanes refuse them at once),
    // so a busy client cannot hold shutdown until the grace period ends.
    if (opts.isDraining()) {
      reply.header('Connection', 'close');
      return;
    }
    inFlight += 1;
    reply.raw.once('close', () => (inFlight -= 1));
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    if (opts.isDraining()) return reply.code(503).send({ status: 'draining' });
    try {
      await c.resolve(TOKENS.Db).query('SELECT 1');
    } catch {
      return reply.code(503).send({ status: 'storage unavailable' });
    }
    try {
      await c.resolve(TOKENS.RateLimiter).ping?.();
    } catch {
      return reply.code(503).send({ status: 'rate limiter unavailable' });
    }
    return { status: 'ready' };
  });

  await app.register(v1Routes, { prefix: '/api/v1', container: c });
  await app.register(v2Routes, { prefix: '/api/v2', container: c });
  await app.register(fileRoutes, { container: c });
  await app.register(openApiRoutes, { container: c });
  await app.register(settingsReferenceRoutes, { container: c });
  await app.register((await import('./mcp/routes.js')).mcpRoutes, { prefix: '/mcp', container: c });
  if (settings.adminToken) await app.register(adminRoutes, { prefix: '/admin', container: c, token: settings.adminToken });
  await app.register(consoleRoutes, { container: c });
  // The console is the service's front page; the API's reference stays at /docs.
  app.get('/', async (_req, reply) => reply.redirect('/console', 302));
  return app as unknown as FastifyInstance;
}
