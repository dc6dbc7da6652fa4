/**
 * `GET /files/:id`: downloads of produced files (PDFs, screenshots). No API key: the signed,
 * expiring URL is the credential; a bad or expired signature is a 404 (spec §8.2: retained 24 h).
 * Clients may cache a download for a few minutes, never beyond the link's expiry. The bytes come
 * from this machine's disk or from the shared bucket (issue 25), streamed either way; one byte
 * range may be asked for, so a large download can resume.
 */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../core/tokens.js';
import type { ByteRange } from '../core/engines/files/types.js';
import { normaliseError } from './hooks/body-errors.js';

/** How long a client may reuse a download, at most (never past the link's expiry). */
const MAX_AGE_S = 300;

/**
 * The one range a `Range` header asks for (RFC 9110 §14.1.2): undefined to serve the whole file (no
 * header, several ranges, or a form we do not read), 'unsatisfiable' when it starts past the end.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  return end < start ? undefined : { start, end };
}

/** Registers the download route. */
export async function fileRoutes(app: FastifyInstance, opts: { container: DependencyContainer }): Promise<void> {
  const engines = opts.container.resolve(TOKENS.Engines);
  app.setErrorHandler(async (raw, _req, reply) => {
    const err = normaliseError(raw);
    reply.code(err.status).send({ error: err.message });
  });
  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>('/files/:id', async (req, reply) => {
    const q = req.query;
    const file = await engines.files.open(req.params.id, q.expires, q.sig);
    const range = parseRange(req.headers.range, file.size);
    reply.header('Accept-Ranges', 'bytes');
    if (range === 'unsatisfiable') {
      reply.header('Content-Range', `bytes */${file.size}`);
      return reply.code(416).send({ error: `The requested range is outside the file (${file.size} bytes).` });
    }
    // Opened before any header is set, so a store failure answers as a plain error.
    const body = await file.stream(range);
    reply.header('Content-Type', file.contentType);
    reply.header('Content-Disposition', `inline; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"`);
    // A cache must not keep serving the file after its link has expired.
    const left = Math.floor((file.expiresAt.getTime() - Date.now()) / 1000);
    reply.header('Cache-Control', `private, max-age=${Math.max(0, Math.min(MAX_AGE_S, left))}`);
    reply.header('X-Content-Type-Options', 'nosniff');
    if (range) {
      reply.code(206);
      reply.header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
      reply.header('Content-Length', range.end - range.start + 1);
    } else {
      reply.header('Content-Length', file.size);
    }
    return reply.send(body);
  });
}
