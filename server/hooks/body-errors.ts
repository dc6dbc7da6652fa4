/** Maps Fastify's own request errors (bad JSON, too large, wrong media type) to catalogue errors. */
import { InputError, MESSAGES, PayloadTooLargeError, ServiceError, toServiceError } from '../../core/errors.js';

/** Normalises anything a route or hook threw. */
export function normaliseError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as { code?: string; statusCode?: number; validation?: unknown; message?: string };
  if (typeof e?.code === 'string') {
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new PayloadTooLargeError('Request body is too large.');
    if (e.code.startsWith('FST_ERR_CTP_')) return new InputError(e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'Content-Type must be application/json.' : MESSAGES.invalidJson);
  }
  if (e?.statusCode === 400 && (err as Error)?.name === 'SyntaxError') return new InputError(MESSAGES.invalidJson);
  return toServiceError(err);
}
