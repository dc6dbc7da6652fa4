/**
 * Usage aggregated over time in the database (issue 26: `GET /admin/stats`): calls, errors,
 * credits and latency percentiles per hour or day, optionally split by lane, target, provider,
 * status or key. The database does the counting, so a month of a busy service is a few rows over
 * the wire, never the usage log loaded into the process.
 */
import type { Db } from '../storage/db.js';

/** Bucket widths. */
export type StatsBucket = 'hour' | 'day';
/** What a bucket may be split by. */
export type StatsGroupBy = 'lane' | 'capability' | 'provider' | 'status' | 'key';

/** One group's share of a bucket. */
export interface StatsGroup {
  key: string;
  calls: number;
  errors: number;
  credits: number;
}

/** One bucket of the answer. */
export interface StatsBucketRow {
  start: string;
  calls: number;
  errors: number;
  credits: number;
  p50Ms: number | null;
  p95Ms: number | null;
  groups?: StatsGroup[];
}

/** A stats question: `[from, to)` in buckets of `bucket`. */
export interface StatsQuery {
  from: Date;
  to: Date;
  bucket: StatsBucket;
  groupBy?: StatsGroupBy;
}

// Column expressions are fixed text chosen by name, never built from what a caller sent.
const GROUP_COLUMN: Record<StatsGroupBy, string> = {
  lane: 'lane',
  // The call's target: a capability, endpoint or operation id (a refused call's path).
  capability: 'object_id',
  provider: `coalesce(provider, '')`,
  status: 'status::text',
  key: 'key_id',
};

const STEP_MS: Record<StatsBucket, number> = { hour: 3_600_000, day: 86_400_000 };

/** Start of the UTC bucket holding `t`. */
export function bucketStart(t: Date, bucket: StatsBucket): Date {
  const step = STEP_MS[bucket];
  return new Date(Math.floor(t.getTime() / step) * step);
}

/** Aggregates the usage log. Every bucket of the range is in the answer, empty ones with zeros. */
export async function usageStats(db: Db, q: StatsQuery): Promise<StatsBucketRow[]> {
  const first = bucketStart(q.from, q.bucket);
  const range = [q.from.toISOString(), q.to.toISOString()];
  const trunc = `date_trunc('${q.bucket}', created_at, 'UTC')`;
  const totals = db.query<{ start: Date | string; calls: string; errors: string; credits: string; p50: number | null; p95: number | null }>(
    `SELECT ${trunc} AS start, count(*) AS calls, count(*) FILTER (WHERE status >= 400) AS errors, coalesce(sum(credits), 0) AS credits,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50, percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
       FROM usage_log WHERE created_at >= $1 AND created_at < $2 GROUP BY 1`,
    range,
  );
  const grouped = q.groupBy
    ? db.query<{ start: Date | string; g: string; calls: string; errors: string; credits: string }>(
        `SELECT ${trunc} AS start, ${GROUP_COLUMN[q.groupBy]} AS g, count(*) AS calls, count(*) FILTER (WHERE status >= 400) AS errors, coalesce(sum(credits), 0) AS credits
           FROM usage_log WHERE created_at >= $1 AND created_at < $2 GROUP BY 1, 2`,
        range,
      )
    : Promise.resolve([]);
  const [rows, groupRows] = await Promise.all([totals, grouped]);

  const byStart = new Map<number, StatsBucketRow>();
  for (let t = first.getTime(); t < q.to.getTime(); t += STEP_MS[q.bucket]) {
    byStart.set(t, { start: new Date(t).toISOString(), calls: 0, errors: 0, credits: 0, p50Ms: null, p95Ms: null, ...(q.groupBy ? { groups: [] } : {}) });
  }
  const round = (v: number | null) => (v === null || v === undefined ? null : Math.round(Number(v)));
  for (const r of rows) {
    const b = byStart.get(new Date(r.start).getTime());
    if (!b) continue;
    Object.assign(b, { calls: Number(r.calls), errors: Number(r.errors), credits: Number(r.credits), p50Ms: round(r.p50), p95Ms: round(r.p95) });
  }
  for (const r of groupRows) {
    byStart.get(new Date(r.start).getTime())?.groups!.push({ key: r.g, calls: Number(r.calls), errors: Number(r.errors), credits: Number(r.credits) });
  }
  const out = [...byStart.values()];
  for (const b of out) b.groups?.sort((x, y) => y.calls - x.calls || (x.key < y.key ? -1 : 1));
  return out;
}
