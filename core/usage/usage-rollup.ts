/**
 * Hourly roll-up of the usage log, so a month of statistics reads a few thousand summary rows
 * instead of every call (issue 26: the overview answers in ≤ 500 ms over 1,000,000 rows). Whole
 * hours that ended at least {@link SETTLE_MS} ago are summed once, per field (total, lane, target,
 * provider, status, key) with GROUPING SETS, plus a latency histogram of the totals; the stats
 * query reads those and counts the recent hours live. A row that reaches the log more than an hour
 * after its time (a crash journal replayed later) is in the log but not in a finished hour's sums.
 */
import type { Db, Queryable } from '../storage/db.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** How long after an hour ends it is rolled up: rows written late (batching, retries) land first. */
export const SETTLE_MS = HOUR_MS;

/**
 * Latency histogram bins: bin b holds latencies in [e^(b/20) − 1, e^((b+1)/20) − 1) ms, about 5%
 * wide, so a percentile read from it is within about 5% of the exact one.
 */
export const LATENCY_BIN_SQL = 'floor(ln(greatest(latency_ms, 0) + 1) * 20)::int';

/** A latency in ms standing for bin `b` (its geometric middle). */
export function binValue(b: number): number {
  return Math.max(0, Math.round(Math.exp((b + 0.5) / 20) - 1));
}

/** The `q`-quantile (0..1) of a histogram given as bin → count. */
export function quantile(bins: Map<number, number>, q: number): number | null {
  let total = 0;
  for (const n of bins.values()) total += n;
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (const b of [...bins.keys()].sort((x, y) => x - y)) {
    seen += bins.get(b)!;
    if (seen >= rank) return binValue(b);
  }
  return null;
}

/** Sums the rows of `[from, to)` into the roll-up tables (whole hours). */
async function rollRange(q: Queryable, from: Date, to: Date): Promise<void> {
  const range = [from.toISOString(), to.toISOString()];
  await q.query(
    `WITH r AS (
       SELECT date_trunc('hour', created_at, 'UTC') AS h, lane, object_id AS cap, coalesce(provider, '') AS prov, status::text AS st, key_id,
              credits, (status >= 400)::int AS err
         FROM usage_log WHERE created_at >= $1 AND created_at < $2)
     INSERT INTO usage_rollup (hour, dim, val, calls, errors, credits)
     SELECT h,
            CASE WHEN GROUPING(lane) = 0 THEN 'lane' WHEN GROUPING(cap) = 0 THEN 'capability' WHEN GROUPING(prov) = 0 THEN 'provider'
                 WHEN GROUPING(st) = 0 THEN 'status' WHEN GROUPING(key_id) = 0 THEN 'key' ELSE '' END,
            coalesce(lane, cap, prov, st, key_id, ''), count(*), sum(err), sum(credits)
       FROM r GROUP BY GROUPING SETS ((h), (h, lane), (h, cap), (h, prov), (h, st), (h, key_id))`,
    range,
  );
  await q.query(
    `INSERT INTO usage_rollup_latency (hour, bin, n)
     SELECT date_trunc('hour', created_at, 'UTC'), ${LATENCY_BIN_SQL}, count(*) FROM usage_log
      WHERE created_at >= $1 AND created_at < $2 GROUP BY 1, 2`,
    range,
  );
}

/** How far the roll-up goes: rows before `hours` are in the hourly sums, before `days` in the daily ones. */
export interface RollupMark {
  hours: Date;
  days: Date | null;
}

/** The roll-up's progress, or null when nothing is rolled up yet. */
export async function rolledUpTo(db: Queryable): Promise<RollupMark | null> {
  const rows = await db.query<{ upto: Date | string | null; days_upto: Date | string | null }>('SELECT upto, days_upto FROM usage_rollup_mark WHERE id = 1');
  const r = rows[0];
  return r?.upto ? { hours: new Date(r.upto), days: r.days_upto ? new Date(r.days_upto) : null } : null;
}

/** Sums the whole days of `[from, to)` from the hourly roll-up into the daily one. */
async function rollDays(q: Queryable, from: Date, to: Date): Promise<void> {
  const range = [from.toISOString(), to.toISOString()];
  await q.query(
    `INSERT INTO usage_rollup_day (day, dim, val, calls, errors, credits)
     SELECT date_trunc('day', hour, 'UTC'), dim, val, sum(calls), sum(errors), sum(credits) FROM usage_rollup
      WHERE hour >= $1 AND hour < $2 GROUP BY 1, 2, 3`,
    range,
  );
  await q.query(
    `INSERT INTO usage_rollup_day_latency (day, bin, n)
     SELECT date_trunc('day', hour, 'UTC'), bin, sum(n) FROM usage_rollup_latency WHERE hour >= $1 AND hour < $2 GROUP BY 1, 2`,
    range,
  );
}

/**
 * Rolls up the next settled hours not yet rolled up, at most `maxHours` of them, and the days they
 * complete (one transaction, so the embedded database, which runs one statement at a time, is never
 * held for long). Returns whether settled hours remain. Instances serialise on the mark row.
 */
export async function refreshRollup(db: Db, now = Date.now(), maxHours = 24): Promise<boolean> {
  const settled = Math.floor((now - SETTLE_MS) / HOUR_MS) * HOUR_MS;
  const peek = await rolledUpTo(db);
  if (peek && peek.hours.getTime() >= settled) return false;
  return db.transaction(async (tx) => {
    // The row lock makes a second instance wait, then see the first one's work.
    const mark = await tx.query<{ upto: Date | string | null; days_upto: Date | string | null }>('SELECT upto, days_upto FROM usage_rollup_mark WHERE id = 1 FOR UPDATE');
    let from: number;
    if (mark[0]?.upto) from = new Date(mark[0].upto).getTime();
    else {
      const first = await tx.query<{ min: Date | string | null }>('SELECT min(created_at) AS min FROM usage_log');
      if (!first[0]?.min) return false;
      from = Math.floor(new Date(first[0].min).getTime() / HOUR_MS) * HOUR_MS;
    }
    if (from >= settled) return false;
    const to = Math.min(settled, from + maxHours * HOUR_MS);
    await rollRange(tx, new Date(from), new Date(to));
    // Days are summed once all their hours are. The first day counts whole: no row is older than
    // the first hour rolled up.
    const daysFrom = mark[0]?.days_upto ? new Date(mark[0].days_upto).getTime() : Math.floor(from / DAY_MS) * DAY_MS;
    const daysTo = Math.floor(to / DAY_MS) * DAY_MS;
    if (daysTo > daysFrom) await rollDays(tx, new Date(daysFrom), new Date(daysTo));
    await tx.query('UPDATE usage_rollup_mark SET upto = $1, days_upto = $2 WHERE id = 1', [new Date(to).toISOString(), new Date(Math.max(daysFrom, daysTo)).toISOString()]);
    return to < settled;
  });
}

/**
 * Keeps the roll-up current in the background: catches up a day at a time, then checks every
 * `everyMs`. Stats are exact whatever its progress (what is not rolled up is counted live); it
 * only makes them cheaper. Returns the stop.
 */
export function keepRolledUp(db: Db, onError: (err: unknown) => void, everyMs = 5 * 60_000): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = (async () => {
      try {
        while (!stopped && (await refreshRollup(db))) await new Promise((r) => setTimeout(r, 50));
      } catch (err) {
        if (!stopped) onError(err);
      }
    })();
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  const first = setTimeout(run, 1000);
  first.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    clearTimeout(first);
    await running;
  };
}
