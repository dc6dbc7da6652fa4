/** The unified lane's one envelope (spec §2.3). */
import type { FastifyRequest } from 'fastify';
import type { ServiceError } from '../../core/errors.js';

/** Success envelope. */
export function ok(req: FastifyRequest, object: string, data: unknown, meta: Record<string, unknown> = {}) {
  return { success: true as const, requestId: req.id, object, data, meta };
}

/** Failure envelope with a stable code (spec §7.2; codes in core/errors.ts). */
export function fail(err: ServiceError, req: FastifyRequest) {
  const body: Record<string, unknown> = { success: false, requestId: req.id, error: err.message, code: err.code };
  if (err.code === 'CODE_EXECUTION_ERROR') body.details = (err as ServiceError & { execution?: unknown }).execution;
  else if (err.details?.field) body.details = { field: err.details.field };
  return body;
}
