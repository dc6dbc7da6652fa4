/**
 * `GET /files/:id`: downloads of produced files (PDFs, screenshots). No API key: the signed,
 * expiring URL is the credential; a bad or expired signature is a 404 (spec §8.2: retained 24 h).
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../core/tokens.js';
import { NotFoundError } from '../core/errors.js';
import { normaliseError } from './hooks/body-errors.js';

/** What the file store's `open` gives back. */
interface OpenedFile {
  path?: string;
  stream?: Readable;
  contentType: string;
  size?: number;
}

/** Registers the download route. */
export async function fileRoutes(app: FastifyInstance, opts: { container: DependencyContainer }): Promise<void> {
  const engines = opts.container.resolve(TOKENS.Engines);
  app.setErrorHandler(async (raw, _req, reply) => {
    const err = normaliseError(raw);
    reply.code(err.status).send({ error: err.message });
  });
  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>('/files/:id', async (req, reply) => {
    const store = engines.files as unknown as { open?: (id: string, expires: string, sig: string) => Promise<OpenedFile> };
    if (!store.open) throw new NotFoundError('File not found or link expired.');
    const q = req.query;
    const file = await store.open(req.params.id, String(q.expires ?? ''), String(q.sig ?? ''));
    reply.header('Content-Type', file.contentType);
    if (file.size !== undefined) reply.header('Content-Length', file.size);
    reply.header('Cache-Control', 'private, max-age=300');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.send(file.stream ?? createReadStream(file.path!));
  });
}
