/** Per-request state shared by the hooks and the lanes. */
import type { FastifyRequest } from 'fastify';
import type { CallRecord } from '../call-record.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The call's facts and its usage row (set for every request of an API lane). */
    call: CallRecord;
  }
}

/** Spec §2.1 + issue 2 §10: body, then `Request-Source` header, then query; trimmed, capped at 64, default `API`. */
export function requestSourceOf(req: FastifyRequest): string {
  const body = req.body as Record<string, unknown> | undefined;
  const fromBody = body && typeof body === 'object' && !Array.isArray(body) ? body.requestSource : undefined;
  const header = req.headers['request-source'];
  const query = (req.query as Record<string, unknown> | undefined)?.requestSource;
  for (const candidate of [fromBody, Array.isArray(header) ? header[0] : header, query]) {
    if (typeof candidate !== 'string') continue;
    // Control characters (NUL above all) are dropped: PostgreSQL text cannot store NUL.
    const clean = candidate.replace(/[\u0000-\u001f\u007f]/g, '').trim();
    if (clean) return clean.slice(0, 64);
  }
  return 'API';
}
