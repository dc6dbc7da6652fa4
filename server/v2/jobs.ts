/**
 * The jobs routes of the unified lane (issue 25): `POST /jobs` (checked as `run` checks, then
 * 202), `GET /jobs/:id` (status, progress, a page of results), `DELETE /jobs/:id` (cancel) and
 * `GET /jobs` (the key's jobs). Another key's job answers exactly as an unknown one: 404.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { jobView } from '../../core/jobs/view.js';
import type { JobWebhookConfig } from '../../core/jobs/webhooks.js';
import { ok } from './envelope.js';
import { JobSubmission, jobSubmissionValidator, readJobBody } from './jobs-input.js';
import { listPaging, resultPaging, statusFilter } from '../jobs-query.js';

/** Registers the jobs routes. */
export function jobRoutes(app: FastifyInstance, c: DependencyContainer): void {
  const jobs = c.resolve(TOKENS.Jobs);
  const op = (req: FastifyRequest, id: string) => req.call.target('operation', id);

  // The usage row of a refused submission names the operation, so it is named before the schema judges.
  const submit = { schema: { body: JobSubmission }, validatorCompiler: jobSubmissionValidator, preValidation: async (req: FastifyRequest) => op(req, 'jobs') };
  app.post('/jobs', submit, async (req, reply) => {
    const body = readJobBody(req.body as Parameters<typeof readJobBody>[0]);
    // The usage row names what the job runs (as `run` does); submitting is free.
    req.call.target(body.type, body.id);
    const job = await jobs.submit(req.call.key!, { ...body, webhook: body.webhook as JobWebhookConfig | undefined });
    req.call.target(job.type, job.target);
    reply.code(202);
    return ok(req, 'job', {
      id: job.id,
      status: job.status,
      type: job.type,
      target: job.target,
      createdAt: job.createdAt.toISOString(),
      statusUrl: `/api/v2/jobs/${job.id}`,
    });
  });

  app.get('/jobs/:id', async (req) => {
    op(req, 'job_status');
    const { id } = req.params as { id: string };
    const page = resultPaging(req.query as Record<string, unknown>);
    return ok(req, 'job', await jobs.view(req.call.key!.id, id, page));
  });

  app.delete('/jobs/:id', async (req) => {
    op(req, 'job_cancel');
    const { id } = req.params as { id: string };
    return ok(req, 'job', jobView(await jobs.cancel(req.call.key!.id, id)));
  });

  app.get('/jobs', async (req) => {
    op(req, 'job_list');
    const q = req.query as Record<string, unknown>;
    const status = statusFilter(q.status);
    const { page, limit } = listPaging(q);
    const items = (await jobs.list({ keyId: req.call.key!.id, status, page, limit })).map((j) => jobView(j));
    return ok(req, 'job_list', { items }, { page, limit, count: items.length });
  });
}
