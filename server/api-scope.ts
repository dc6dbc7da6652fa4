/**
 * What both API lanes share (design: "The lanes differ only in request adapters and error
 * serialisers"): request context, bearer auth + rate limit, one error handler that hands the
 * catalogue error to the lane's serialiser, and a usage row for every authenticated call.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../core/tokens.js';
import { authHook, setRateHeaders } from './hooks/auth.js';
import { requestSourceOf } from './hooks/context.js';
import { normaliseError } from './hooks/body-errors.js';
import { NotFoundError, ShuttingDownError, type ServiceError } from '../core/errors.js';

/** Turns a catalogue error into the lane's body. */
export type ErrorSerialiser = (err: ServiceError, req: FastifyRequest) => unknown;

/** Installs the shared hooks on a lane's encapsulated scope. */
export function setupApiScope(app: FastifyInstance, c: DependencyContainer, lane: 'v1' | 'v2', serialise: ErrorSerialiser): void {
  const keys = c.resolve(TOKENS.Keys);
  const limiter = c.resolve(TOKENS.RateLimiter);
  const usage = c.resolve(TOKENS.Usage);
  const log = c.resolve(TOKENS.Logger);

  app.addHook('onRequest', async (req) => {
    req.call = { startedAt: process.hrtime.bigint() };
    if (app.isDraining()) throw new ShuttingDownError();
  });
  app.addHook('onRequest', authHook(keys, limiter));

  app.setErrorHandler(async (raw, req, reply: FastifyReply) => {
    const err = normaliseError(raw);
    if (err.code === 'INTERNAL') log.error({ reqId: req.id, err: raw, cause: (raw as Error)?.cause }, 'request failed');
    else if (err.status >= 500) log.warn({ reqId: req.id, code: err.code, cause: String((err.cause as Error)?.message ?? '') }, err.message);
    if (req.call?.call) req.call.call.code = err.code;
    else if (req.call) req.call.call = { objectType: 'operation', objectId: req.routeOptions?.url ?? req.url, provider: (err as ServiceError & { provider?: string }).provider ?? null, credits: 0, code: err.code };
    if (req.call?.call && (err as { provider?: string }).provider !== undefined) req.call.call.provider = (err as { provider?: string }).provider ?? null;
    setRateHeaders(reply, req);
    if (err.code === 'RATE_LIMITED' && typeof err.details?.retryAfter === 'number') reply.header('Retry-After', err.details.retryAfter);
    reply.code(err.status).send(serialise(err, req));
  });

  app.setNotFoundHandler(async (req) => {
    throw new NotFoundError(`Route ${req.method} ${req.url.split('?')[0]} not found.`);
  });

  app.addHook('onResponse', async (req, reply) => {
    const key = req.call?.key;
    if (!key) return;
    const call = req.call.call ?? { objectType: 'operation' as const, objectId: req.routeOptions?.url ?? req.url.split('?')[0]!, provider: null, credits: 0, code: null };
    usage.record({
      requestId: req.id,
      keyId: key.id,
      lane,
      objectType: call.objectType,
      objectId: call.objectId,
      provider: call.provider,
      status: reply.statusCode,
      code: reply.statusCode >= 400 ? call.code : null,
      credits: call.credits,
      latencyMs: Number((process.hrtime.bigint() - req.call.startedAt) / 1_000_000n),
      requestSource: requestSourceOf(req),
      createdAt: new Date(),
    });
  });
}

/** The call's input: the JSON body (POST) or query (GET) without `requestSource`. */
export function inputOf(req: FastifyRequest): unknown {
  const raw = req.method === 'GET' ? req.query : req.body;
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const { requestSource: _ignored, ...rest } = raw as Record<string, unknown>;
  return rest;
}
