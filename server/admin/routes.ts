/**
 * The admin HTTP API under `/admin`, guarded by `ADMIN_TOKEN` (off when unset). Errors are
 * `{ error }` like the direct lane.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { AuthError, MESSAGES, NotFoundError, InputError } from '../../core/errors.js';
import { normaliseError } from '../hooks/body-errors.js';
import { paging, usageQuery } from '../usage-query.js';
import { AdminService } from './service.js';
import { statsRoute } from './stats.js';
import { insightRoutes } from './insight.js';
import { adminJobRoutes } from './jobs.js';
import { adminWebhookSecretRoutes } from './webhook-secret.js';

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

function body(req: FastifyRequest): Record<string, unknown> {
  const b = req.body;
  if (b === undefined || b === null) return {};
  if (typeof b !== 'object' || Array.isArray(b)) throw new InputError('Body must be a JSON object.');
  return b as Record<string, unknown>;
}

/** Registers the admin scope. */
export async function adminRoutes(app: FastifyInstance, opts: { container: DependencyContainer; token: string }): Promise<void> {
  const c = opts.container;
  const settings = c.resolve(TOKENS.Settings);
  const svc = new AdminService(c.resolve(TOKENS.Keys), c.resolve(TOKENS.Ledger), c.resolve(TOKENS.Usage), settings.defaultRateLimit);

  app.addHook('onRequest', async (req) => {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m) throw new AuthError(MESSAGES.badAuthHeader);
    if (!sameSecret(m[1]!, opts.token)) throw new AuthError('Invalid admin token.');
  });
  app.setErrorHandler(async (raw, _req, reply) => {
    const err = normaliseError(raw);
    reply.code(err.status).send({ error: err.message, code: err.code });
  });
  app.setNotFoundHandler(async (req) => {
    throw new NotFoundError(`Route ${req.method} ${req.url.split('?')[0]} not found.`);
  });

  app.post('/keys', async (req, reply) => {
    reply.code(201);
    return svc.createKey(body(req));
  });
  app.get('/keys', async (req) => {
    const query = req.query as Record<string, unknown>;
    const { page, limit } = paging(query);
    return { items: await svc.listKeys(page, limit, typeof query.search === 'string' ? query.search : undefined), page, limit };
  });
  app.post<{ Params: { id: string } }>('/keys/:id/rotate', async (req) => svc.rotateKey(req.params.id));
  app.get<{ Params: { id: string } }>('/keys/:id', async (req) => svc.getKey(req.params.id));
  app.patch<{ Params: { id: string } }>('/keys/:id', async (req) => svc.updateKey(req.params.id, body(req)));
  app.post<{ Params: { id: string } }>('/keys/:id/credits', async (req) => svc.adjustCredits(req.params.id, body(req)));
  app.get<{ Params: { id: string } }>('/keys/:id/usage', async (req) => {
    const q = usageQuery(req.query as Record<string, unknown>);
    return { items: await svc.usageOf(req.params.id, q), page: q.page, limit: q.limit };
  });
  app.get<{ Params: { id: string } }>('/keys/:id/transactions', async (req) => {
    const { page, limit } = paging(req.query as Record<string, unknown>);
    return { items: await svc.transactionsOf(req.params.id, page, limit), page, limit };
  });
  statsRoute(app, c);
  insightRoutes(app, c);
  adminJobRoutes(app, c);
  adminWebhookSecretRoutes(app, c);
  // A produced file (the id is the path segment after /files/ in its link), removed before its
  // time, e.g. a permanent image. Files live in each instance's DATA_DIR: ask the instance whose
  // links serve it (the compose file shares one files volume between instances).
  const files = c.resolve(TOKENS.Engines).files;
  app.delete<{ Params: { id: string } }>('/files/:id', async (req) => {
    if (!(await files.delete(req.params.id))) throw new NotFoundError(`File not found: ${req.params.id}`);
    return { id: req.params.id, deleted: true };
  });
}
