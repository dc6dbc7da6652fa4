/**
 * Usage aggregated over time in the database (issue 26: `GET /admin/stats`): calls, errors,
 * credits and latency percentiles per hour or day, optionally split by lane, target, provider,
 * status or key. The database does the counting, so a month of a busy service is a few rows over
 * the wire, never the usage log loaded into the process.
 */
import type { Db } from '../storage/db.js';
import { LATENCY_BIN_SQL, quantile, rolledUpTo } from './usage-rollup.js';

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
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Start of the UTC bucket holding `t`. */
export function bucketStart(t: Date, bucket: StatsBucket): Date {
  const step = STEP_MS[bucket];
  return new Date(Math.floor(t.getTime() / step) * step);
}

interface Acc {
  row: StatsBucketRow;
  bins: Map<number, number>;
  groups: Map<string, StatsGroup>;
}

/**
 * Aggregates the usage log over `[from, to)`. Whole hours already rolled up are read from the
 * roll-up (usage-rollup.ts, kept current in the background); the rest (the recent hours and partial hours at the edges) is counted
 * from the log itself. Latency percentiles come from a histogram with bins about 5% wide. Every
 * bucket of the range is in the answer, empty ones with zeros.
 */
export async function usageStats(db: Db, q: StatsQuery): Promise<StatsBucketRow[]> {
  const mark = await rolledUpTo(db);
  const from = q.from.getTime();
  const to = q.to.getTime();
  // Whole hours inside the range and inside the roll-up.
  const rollFrom = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const rollTo = Math.min(Math.floor(to / HOUR_MS) * HOUR_MS, mark?.hours.getTime() ?? 0);
  const rolled = rollTo > rollFrom;
  const live: [number, number][] = rolled ? [[from, rollFrom], [rollTo, to]] : [[from, to]];

  const acc = new Map<number, Acc>();
  for (let t = bucketStart(q.from, q.bucket).getTime(); t < to; t += STEP_MS[q.bucket]) {
    acc.set(t, { row: { start: new Date(t).toISOString(), calls: 0, errors: 0, credits: 0, p50Ms: null, p95Ms: null, ...(q.groupBy ? { groups: [] } : {}) }, bins: new Map(), groups: new Map() });
  }
  const addTotal = (a: Acc | undefined, calls: unknown, errors: unknown, credits: unknown) => {
    if (!a) return;
    a.row.calls += Number(calls);
    a.row.errors += Number(errors);
    a.row.credits += Number(credits);
  };
  const addGroup = (a: Acc | undefined, key: string, calls: unknown, errors: unknown, credits: unknown) => {
    if (!a) return;
    const g = a.groups.get(key) ?? { key, calls: 0, errors: 0, credits: 0 };
    g.calls += Number(calls);
    g.errors += Number(errors);
    g.credits += Number(credits);
    a.groups.set(key, g);
  };
  const addBin = (a: Acc | undefined, bin: unknown, n: unknown) => {
    if (a) a.bins.set(Number(bin), (a.bins.get(Number(bin)) ?? 0) + Number(n));
  };

  const work: Promise<void>[] = [];
  // Buckets come back as epoch milliseconds: no date parsing per row on this side.
  const epoch = (expr: string) => `(extract(epoch FROM ${expr}) * 1000)::float8`;
  // A rolled-up segment of whole hours (`usage_rollup`) or whole days (`usage_rollup_day`).
  const readRolled = (table: 'usage_rollup' | 'usage_rollup_day', col: 'hour' | 'day', a: number, b: number) => {
    if (b <= a) return;
    const range = [new Date(a).toISOString(), new Date(b).toISOString()];
    const start = epoch(`date_trunc('${q.bucket}', ${col}, 'UTC')`);
    work.push(
      db.query<{ t: number; dim: string; val: string; calls: string; errors: string; credits: string }>(
        `SELECT ${start} AS t, dim, val, sum(calls) AS calls, sum(errors) AS errors, sum(credits) AS credits
           FROM ${table} WHERE ${col} >= $1 AND ${col} < $2 AND dim IN ('', $3) GROUP BY 1, 2, 3`,
        [...range, q.groupBy ?? ''],
      ).then((rows) => {
        for (const r of rows) r.dim === '' ? addTotal(acc.get(r.t), r.calls, r.errors, r.credits) : addGroup(acc.get(r.t), r.val, r.calls, r.errors, r.credits);
      }),
      db.query<{ t: number; bin: number; n: string }>(`SELECT ${start} AS t, bin, sum(n) AS n FROM ${table}_latency WHERE ${col} >= $1 AND ${col} < $2 GROUP BY 1, 2`, range).then((rows) => {
        for (const r of rows) addBin(acc.get(r.t), r.bin, r.n);
      }),
    );
  };
  if (rolled) {
    // Day buckets read whole rolled-up days from the daily sums, and only the hours around them hourly.
    const dayFrom = Math.ceil(rollFrom / DAY_MS) * DAY_MS;
    const dayTo = Math.min(Math.floor(rollTo / DAY_MS) * DAY_MS, mark?.days?.getTime() ?? 0);
    if (q.bucket === 'day' && dayTo > dayFrom) {
      readRolled('usage_rollup', 'hour', rollFrom, dayFrom);
      readRolled('usage_rollup_day', 'day', dayFrom, dayTo);
      readRolled('usage_rollup', 'hour', dayTo, rollTo);
    } else readRolled('usage_rollup', 'hour', rollFrom, rollTo);
  }
  for (const [a, b] of live) {
    if (b <= a) continue;
    // One pass over the recent rows: per bucket and latency bin (totals are their sums), and per
    // bucket and group when a split is asked for.
    const sets = q.groupBy ? 'GROUPING SETS ((t, bin), (t, g))' : 't, bin';
    work.push(
      db.query<{ t: number; bin: number | null; g: string | null; calls: string; errors: string; credits: string }>(
        `WITH r AS (
           SELECT ${epoch(`date_trunc('${q.bucket}', created_at, 'UTC')`)} AS t, ${LATENCY_BIN_SQL} AS bin, ${q.groupBy ? GROUP_COLUMN[q.groupBy] : "''"} AS g, status, credits
             FROM usage_log WHERE created_at >= $1 AND created_at < $2)
         SELECT t, bin, ${q.groupBy ? 'g' : 'NULL::text AS g'}, count(*) AS calls, count(*) FILTER (WHERE status >= 400) AS errors, coalesce(sum(credits), 0) AS credits
           FROM r GROUP BY ${sets}`,
        [new Date(a).toISOString(), new Date(b).toISOString()],
      ).then((rows) => {
        for (const r of rows) {
          const bucketAcc = acc.get(Number(r.t));
          if (r.g !== null) addGroup(bucketAcc, r.g, r.calls, r.errors, r.credits);
          else {
            addTotal(bucketAcc, r.calls, r.errors, r.credits);
            addBin(bucketAcc, r.bin, r.calls);
          }
        }
      }),
    );
  }
  await Promise.all(work);

  return [...acc.values()].map(({ row, bins, groups }) => {
    row.p50Ms = quantile(bins, 0.5);
    row.p95Ms = quantile(bins, 0.95);
    if (row.groups) row.groups = [...groups.values()].sort((x, y) => y.calls - x.calls || (x.key < y.key ? -1 : 1));
    return row;
  });
}
