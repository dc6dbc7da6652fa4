/**
 * The operator's view of a key's webhook signing secret (issue 25): `GET /keys/:id/webhook-secret`
 * reads it (creating it on first use), `POST` replaces it. An unknown key is a 404.
 */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';

/** Registers the two admin routes. */
export function adminWebhookSecretRoutes(app: FastifyInstance, c: DependencyContainer): void {
  const secrets = c.resolve(TOKENS.WebhookSecrets);
  app.get<{ Params: { id: string } }>('/keys/:id/webhook-secret', async (req) => ({ keyId: req.params.id, ...(await secrets.get(req.params.id)) }));
  app.post<{ Params: { id: string } }>('/keys/:id/webhook-secret', async (req) => ({ keyId: req.params.id, ...(await secrets.rotate(req.params.id)) }));
}
