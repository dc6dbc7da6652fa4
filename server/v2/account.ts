/** The calling key's own money and history: balance (spec §4.10), usage and ledger entries. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { ok } from './envelope.js';
import { paging, usageQuery } from '../usage-query.js';

/** Registers balance, usage and transactions. */
export function accountRoutes(app: FastifyInstance, c: DependencyContainer): void {
  const ledger = c.resolve(TOKENS.Ledger);
  const usage = c.resolve(TOKENS.Usage);
  const mark = (req: FastifyRequest, id: string) => {
    req.call.target('operation', id);
  };

  app.get('/balance', async (req) => {
    mark(req, 'balance');
    const key = req.call.key!;
    const b = await ledger.balance(key);
    return ok(req, 'balance', {
      keyId: key.id,
      name: key.name,
      credits: b.credits,
      reserved: b.reserved,
      budget: b.budget,
      spent: b.spent,
      budgetRemaining: b.budget === null ? null : Math.max(0, b.budget - b.spent - b.reserved),
      periodStart: b.periodStart.toISOString(),
      periodEnd: b.periodEnd.toISOString(),
      rateLimit: { limit: req.call.rate?.limit ?? key.rateLimit, remaining: req.call.rate?.remaining ?? null, windowSeconds: 60 },
    });
  });

  app.get('/usage', async (req) => {
    mark(req, 'usage');
    const q = usageQuery(req.query as Record<string, unknown>);
    const items = await usage.list(req.call.key!.id, q);
    return ok(req, 'usage_list', { items }, { page: q.page, limit: q.limit, count: items.length });
  });

  app.get('/transactions', async (req) => {
    mark(req, 'transactions');
    const { page, limit } = paging(req.query as Record<string, unknown>);
    const items = await ledger.entries(req.call.key!.id, page, limit);
    return ok(req, 'transaction_list', { items }, { page, limit, count: items.length });
  });
}
