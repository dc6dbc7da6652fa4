/**
 * `GET /jobs/:id/deliveries` (issue 25): every webhook event of the key's job with every attempt
 * made. Another key's job and an unknown one are the same 404, never a hint that it exists.
 */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { NotFoundError } from '../../core/errors.js';
import { ok } from './envelope.js';
import { paging } from '../usage-query.js';

/** Whether the key owns a job with this id (the job engine answers; see `deliveriesRoute`). */
export type JobExists = (keyId: string, jobId: string) => Promise<boolean>;

/**
 * Registers the route. Without `jobExists` a job is known by its recorded webhook events, so a
 * job of the key's that has none yet answers 404 too: the job engine passes its own lookup.
 */
export function jobDeliveriesRoute(app: FastifyInstance, c: DependencyContainer, jobExists?: JobExists): void {
  const deliveries = c.resolve(TOKENS.WebhookDeliveries);
  const exists: JobExists = jobExists ?? ((keyId, jobId) => deliveries.hasJob(keyId, jobId));
  app.get<{ Params: { id: string } }>('/jobs/:id/deliveries', async (req) => {
    req.call.target('operation', 'job_deliveries');
    const keyId = req.call.key!.id;
    const jobId = req.params.id;
    if (!(await exists(keyId, jobId))) throw new NotFoundError(`Job not found: ${jobId}`);
    const { page, limit } = paging(req.query as Record<string, unknown>);
    const items = await deliveries.listForJob(keyId, jobId, page, limit);
    return ok(req, 'delivery_list', { items }, { jobId, page, limit, count: items.length });
  });
}
