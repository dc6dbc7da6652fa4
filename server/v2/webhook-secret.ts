/**
 * The calling key's webhook signing secret (issue 25): `GET /webhook-secret` reads it (creating
 * it on first use), `POST /webhook-secret` replaces it; from then on every attempt, retries of
 * earlier events included, is signed with the new one only.
 */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { ok } from './envelope.js';

/** Registers the two secret routes. */
export function webhookSecretRoutes(app: FastifyInstance, c: DependencyContainer): void {
  const secrets = c.resolve(TOKENS.WebhookSecrets);
  app.get('/webhook-secret', async (req) => {
    req.call.target('operation', 'webhook_secret');
    return ok(req, 'webhook_secret', await secrets.get(req.call.key!.id));
  });
  app.post('/webhook-secret', async (req) => {
    req.call.target('operation', 'webhook_secret');
    return ok(req, 'webhook_secret', await secrets.rotate(req.call.key!.id));
  });
}
