/** The unified lane scope (spec §4.10): run, search, details, balance, usage, transactions. */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { setupApiScope } from '../api-scope.js';
import { TOKENS } from '../../core/tokens.js';
import { fail } from './envelope.js';
import { runRoute } from './run.js';
import { discoveryRoutes } from './discovery.js';
import { accountRoutes } from './account.js';
import { jobRoutes } from './jobs.js';
import { webhookSecretRoutes } from './webhook-secret.js';
import { jobDeliveriesRoute } from './job-deliveries.js';
import { monitorRoutes } from './monitors.js';

/** Registers the v2 scope. */
export async function v2Routes(app: FastifyInstance, opts: { container: DependencyContainer }): Promise<void> {
  setupApiScope(app, opts.container, 'v2', fail);
  runRoute(app, opts.container);
  discoveryRoutes(app, opts.container);
  accountRoutes(app, opts.container);
  jobRoutes(app, opts.container);
  webhookSecretRoutes(app, opts.container);
  const jobs = opts.container.resolve(TOKENS.Jobs);
  jobDeliveriesRoute(app, opts.container, (keyId, jobId) => jobs.jobExists(keyId, jobId));
  monitorRoutes(app, opts.container);
}
