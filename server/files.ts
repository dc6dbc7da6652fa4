/**
 * `GET /files/:id`: downloads of produced files (PDFs, screenshots). No API key: the signed,
 * expiring URL is the credential; a bad or expired signature is a 404 (spec §8.2: retained 24 h).
 * Clients may cache a download for a few minutes, never beyond the link's expiry.
 */
import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../core/tokens.js';
import { normaliseError } from './hooks/body-errors.js';

/** How long a client may reuse a download, at most (never past the link's expiry). */
const MAX_AGE_S = 300;

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
    reply.header('Content-Type', file.contentType);
    reply.header('Content-Length', file.size);
    reply.header('Content-Disposition', `inline; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"`);
    // A cache must not keep serving the file after its link has expired.
    const left = Math.floor((file.expiresAt.getTime() - Date.now()) / 1000);
    reply.header('Cache-Control', `private, max-age=${Math.max(0, Math.min(MAX_AGE_S, left))}`);
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.send(createReadStream(file.path));
  });
}
