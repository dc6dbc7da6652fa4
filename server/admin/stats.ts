/**
 * `GET /admin/stats` (issue 26): usage aggregated in the database, per hour or day, optionally split
 * by lane, capability (the call's target), provider, status or key. Serves the console's overview,
 * the CLI and anyone's dashboards alike.
 */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { InputError } from '../../core/errors.js';
import { usageStats, type StatsBucket, type StatsGroupBy, type StatsQuery } from '../../core/usage/usage-stats.js';
import { keepRolledUp } from '../../core/usage/usage-rollup.js';

const BUCKETS: StatsBucket[] = ['hour', 'day'];
const GROUPS: StatsGroupBy[] = ['lane', 'capability', 'provider', 'status', 'key'];
/** Enough for 90 days by the hour or a decade by the day, and a bound on the answer's size. */
const MAX_BUCKETS = 4000;

function time(q: Record<string, unknown>, name: string, fallback: Date): Date {
  const raw = q[name];
  if (raw === undefined || raw === '') return fallback;
  const d = typeof raw === 'string' && /^\d{4}-\d{2}-\d{2}/.test(raw) ? new Date(raw) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw new InputError(`Invalid input: '${name}' must be an ISO 8601 date-time.`, { details: { field: name } });
  return d;
}

/** Parses and checks the query string of `GET /admin/stats`. */
export function statsQuery(q: Record<string, unknown>, now = new Date()): StatsQuery {
  const bucket = (q.bucket ?? 'hour') as StatsBucket;
  if (!BUCKETS.includes(bucket)) throw new InputError("Invalid input: 'bucket' must be hour or day.", { details: { field: 'bucket' } });
  const groupBy = q.groupBy === undefined || q.groupBy === '' ? undefined : (q.groupBy as StatsGroupBy);
  if (groupBy !== undefined && !GROUPS.includes(groupBy)) throw new InputError(`Invalid input: 'groupBy' must be one of: ${GROUPS.join(', ')}.`, { details: { field: 'groupBy' } });
  const to = time(q, 'to', now);
  const from = time(q, 'from', new Date(to.getTime() - 24 * 3_600_000));
  if (from.getTime() >= to.getTime()) throw new InputError("Invalid input: 'from' must be before 'to'.", { details: { field: 'from' } });
  const step = bucket === 'hour' ? 3_600_000 : 86_400_000;
  if ((to.getTime() - from.getTime()) / step > MAX_BUCKETS) throw new InputError(`Invalid input: at most ${MAX_BUCKETS} buckets; use bucket=day or a shorter range.`, { details: { field: 'from' } });
  return { from, to, bucket, groupBy };
}

/** Registers `GET /stats` in the admin scope. */
export function statsRoute(app: FastifyInstance, c: DependencyContainer): void {
  const db = c.resolve(TOKENS.Db);
  const usage = c.resolve(TOKENS.Usage);
  const log = c.resolve(TOKENS.Logger);
  const stop = keepRolledUp(db, (err) => log.warn({ err }, 'usage roll-up failed; stats count the log directly'));
  app.addHook('onClose', stop);
  app.get('/stats', async (req) => {
    const q = statsQuery(req.query as Record<string, unknown>);
    // Rows still buffered in this instance count too: a dashboard sees the calls just made.
    await usage.flush();
    return { from: q.from.toISOString(), to: q.to.toISOString(), bucket: q.bucket, groupBy: q.groupBy ?? null, buckets: await usageStats(db, q) };
  });
}
