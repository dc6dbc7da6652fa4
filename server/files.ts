/**
 * `GET /files/:id`: downloads of produced files (PDFs, screenshots). No API key: the signed,
 * expiring URL is the credential; a bad or expired signature is a 404 (spec §8.2: retained 24 h).
 */
import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../core/tokens.js';
import { normaliseError } from './hooks/body-errors.js';

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
    reply.header('Cache-Control', 'private, max-age=300');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.send(createReadStream(file.path));
  });
}
