/** The calling key's own money and history: balance (spec §4.10), usage and ledger entries. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { InputError } from '../../core/errors.js';
import type { UsageQuery } from '../../core/usage/usage-log.js';
import { ok } from './envelope.js';
import { pageQuery } from '../query-paging.js';

/** Reads `page` and `limit` from the query string. */
export function paging(q: Record<string, unknown>): { page: number; limit: number } {
  return pageQuery(q, 50, 500);
}

/** Object types a usage filter may name: a row's own type, or `provider` (rows a provider served). */
const OBJECT_TYPES = ['capability', 'endpoint', 'operation', 'provider'];

/**
 * Parses the usage filters (issue 2 §10). `objectType=provider` is what the original service's CLI
 * offers: rows whose provider is `objectId` (or `provider`), or every provider-served row without
 * one (issue 19). Control characters cannot be stored or matched, so they are the caller's error.
 */
export function usageQuery(q: Record<string, unknown>): UsageQuery {
  const str = (name: string) => {
    const v = typeof q[name] === 'string' && q[name] ? (q[name] as string) : undefined;
    if (v !== undefined && /[\u0000-\u001f\u007f]/.test(v)) throw new InputError(`Invalid input: '${name}' must not contain control characters.`, { details: { field: name } });
    return v;
  };
  const statusRaw = str('status');
  let status: UsageQuery['status'];
  if (statusRaw === 'success' || statusRaw === 'error') status = statusRaw;
  else if (statusRaw !== undefined) {
    const n = Number(statusRaw);
    if (!Number.isInteger(n) || n < 100 || n > 599) throw new InputError("Invalid input: 'status' must be success, error or an HTTP status.", { details: { field: 'status' } });
    status = n;
  }
  const objectType = str('objectType');
  if (objectType && !OBJECT_TYPES.includes(objectType)) throw new InputError(`Invalid input: 'objectType' must be one of: ${OBJECT_TYPES.join(', ')}.`, { details: { field: 'objectType' } });
  if (objectType === 'provider') return { provider: str('objectId') ?? str('provider'), providerServed: true, status, ...paging(q) };
  return { objectType, objectId: str('objectId'), provider: str('provider'), status, ...paging(q) };
}

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
