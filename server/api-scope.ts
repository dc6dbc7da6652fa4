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
import { CallRecord, CLIENT_CLOSED_STATUS } from './call-record.js';


/** Turns a catalogue error into the lane's body. */
export type ErrorSerialiser = (err: ServiceError, req: FastifyRequest) => unknown;

/** Installs the shared hooks on a lane's encapsulated scope. */
export function setupApiScope(app: FastifyInstance, c: DependencyContainer, lane: 'v1' | 'v2', serialise: ErrorSerialiser): void {
  const keys = c.resolve(TOKENS.Keys);
  const limiter = c.resolve(TOKENS.RateLimiter);
  const usage = c.resolve(TOKENS.Usage);
  const log = c.resolve(TOKENS.Logger);

  app.addHook('onRequest', async (req) => {
    req.call = new CallRecord(req.url.split('?')[0]!);
    if (app.isDraining()) throw new ShuttingDownError();
  });
  app.addHook('onRequest', authHook(keys, limiter));

  app.setErrorHandler(async (raw, req, reply: FastifyReply) => {
    const err = normaliseError(raw);
    const gone = reply.raw.destroyed;
    if (gone) log.debug({ reqId: req.id, code: err.code }, 'the client went away before the answer');
    else if (err.code === 'INTERNAL') log.error({ reqId: req.id, err: raw, cause: (raw as Error)?.cause }, 'request failed');
    // A code-execution failure is the caller's own exception: not the operator's concern, and unbounded.
    else if (err.status >= 500 && err.code !== 'CODE_EXECUTION_ERROR') log.warn({ reqId: req.id, code: err.code, cause: String((err.cause as Error)?.message ?? '').slice(0, 1000) }, err.message.slice(0, 1000));
    req.call?.failed(err.code);
    setRateHeaders(reply, req);
    if (err.code === 'RATE_LIMITED' && typeof err.details?.retryAfter === 'number') reply.header('Retry-After', err.details.retryAfter);
    return reply.code(err.status).send(serialise(err, req));
  });

  app.setNotFoundHandler(async (req) => {
    throw new NotFoundError(`Route ${req.method} ${req.url.split('?')[0]} not found.`);
  });

  /**
   * Writes the call's usage row once, as the answer is handed to the socket (before the client can
   * have it, so a shutdown that closes the usage log right after the last answer still holds the
   * row, and the answer waits for the row's journal line), or with 499 when the client had gone;
   * `onResponse` catches any answer `onSend` missed.
   */
  const record = (req: FastifyRequest, status: number, then?: () => void): void => {
    const row = req.call?.take({ requestId: req.id, lane, status, requestSource: requestSourceOf(req) });
    if (row) usage.record(row, then);
    else then?.();
  };
  app.addHook('onSend', (req, reply, payload, done) => {
    record(req, reply.raw.destroyed ? CLIENT_CLOSED_STATUS : reply.statusCode, () => done(null, payload));
  });
  app.addHook('onResponse', (req, reply, done) => {
    record(req, reply.statusCode);
    done();
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
