/**
 * Refuses JSON bodies nested deeper than the service's limit on every lane (v1, v2, admin, MCP),
 * with the lane's own 400, before any route code walks them (issue 24 finding 7).
 */
import type { FastifyInstance } from 'fastify';
import { InputError } from '../../core/errors.js';
import { nestedDeeperThan, TOO_DEEP_MESSAGE } from '../json-depth.js';

/**
 * A root `preValidation` hook: it runs after the lane's authentication (so the refusal is
 * counted and rate-limited like any call) and before the handler; the error goes to the
 * route's own scope, whose error handler writes the lane's body.
 */
export function installJsonDepthLimit(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    if (nestedDeeperThan(req.body)) throw new InputError(TOO_DEEP_MESSAGE);
  });
}
