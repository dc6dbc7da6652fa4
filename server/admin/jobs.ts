/** The admin API's jobs (issue 25): every key's jobs with filters, one job, cancel. */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { InputError } from '../../core/errors.js';
import { jobView } from '../../core/jobs/view.js';
import { listPaging, resultPaging, statusFilter } from '../jobs-query.js';

const str = (q: Record<string, unknown>, name: string): string | undefined => {
  const v = q[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || v.length > 200 || /[\u0000-\u001f\u007f]/.test(v)) throw new InputError(`Invalid input: '${name}' must be a short string.`, { details: { field: name } });
  return v;
};

/** Registers `/admin/jobs` routes. */
export function adminJobRoutes(app: FastifyInstance, c: DependencyContainer): void {
  const jobs = c.resolve(TOKENS.Jobs);
  app.get('/jobs', async (req) => {
    const q = req.query as Record<string, unknown>;
    const { page, limit } = listPaging(q);
    const items = await jobs.list({ keyId: str(q, 'keyId'), status: statusFilter(q.status), target: str(q, 'target'), page, limit });
    return { items: items.map((j) => ({ ...jobView(j), keyId: j.keyId })), page, limit };
  });
  app.get<{ Params: { id: string } }>('/jobs/:id', async (req) => {
    const view = await jobs.view(null, req.params.id, resultPaging(req.query as Record<string, unknown>));
    return { ...view, keyId: (await jobs.get(null, req.params.id)).keyId };
  });
  app.post<{ Params: { id: string } }>('/jobs/:id/cancel', async (req) => jobView(await jobs.cancel(null, req.params.id)));
}
