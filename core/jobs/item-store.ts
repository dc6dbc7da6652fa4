/**
 * SQL for a stepwise job's items (table `job_items`, migration 7), one statement per call so an
 * item costs the store as few round trips as possible (issue 25, bench:jobs): items are seeded,
 * claimed and handed back in batches, and finished items are recorded many at once together with
 * the new items they found and the job's counts and credits.
 */
import type { Queryable, Row } from '../storage/db.js';
import type { ClaimedItem } from './types.js';

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

/** An item to add to a job (a seed, or a link a crawl found). */
export interface NewItem {
  key: string;
  data?: unknown;
}

/** How one claimed item ended. */
export interface ItemOutcome {
  id: number;
  /** `skipped`: nothing to return (not counted, not charged). */
  status: 'done' | 'failed' | 'skipped';
  result?: unknown;
  credits: number;
}

/** The part of `record` that offers new items: keys the job holds are dropped. */
const OFFER_CTE = `o AS (
  INSERT INTO job_items (job_id, item_key, data, status)
  SELECT $1, k, d::jsonb, 'pending' FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(k, d, n) ORDER BY n
  ON CONFLICT (job_id, item_key) DO NOTHING
  RETURNING id),`;

/** Claimed item rows, oldest first. */
function toClaimed(rows: Row[]): ClaimedItem[] {
  return rows.map((r) => ({ id: Number(r.id), key: r.item_key as string, data: r.data ?? undefined, attempts: Number(r.attempts) })).sort((a, b) => a.id - b.id);
}

/** Item statements of the job tables. */
export class JobItems {
  constructor(private readonly db: Queryable) {}

  /**
   * Records the seeded items and the job's limit, and claims the first `claim` of them (no more
   * than the limit), in one statement; items whose key the job holds are dropped. Seeding is
   * atomic with the job's `seeded` flag, so it happens once and nothing else holds an item yet.
   */
  async seed(id: string, items: NewItem[], limit: number, total: number | null, claim: number, seconds: number): Promise<ClaimedItem[]> {
    const rows = await this.db.query(
      `WITH i AS (
         INSERT INTO job_items (job_id, item_key, data, status, attempts, lease_until)
         SELECT $1, k, d::jsonb, CASE WHEN n <= $6 THEN 'running' ELSE 'pending' END, CASE WHEN n <= $6 THEN 1 ELSE 0 END,
           CASE WHEN n <= $6 THEN now() + $7 * interval '1 second' END
         FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(k, d, n) ORDER BY n
         ON CONFLICT (job_id, item_key) DO NOTHING
         RETURNING id, item_key, data, attempts, status),
       j AS (UPDATE jobs SET seeded = TRUE, item_limit = $4, total = $5 WHERE id = $1)
       SELECT id, item_key, data, attempts FROM i WHERE status = 'running'`,
      [id, items.map((i) => i.key), items.map((i) => json(i.data)), limit, total, Math.min(claim, limit), seconds],
    );
    return toClaimed(rows);
  }

  /**
   * Claims up to `n` items to run, oldest first: pending ones, or running ones whose lease lapsed
   * (their instance died), never more than the job's limit minus its results and the items
   * running under a live lease. The UPDATE checks each row's state again as it takes it, so two
   * claims never take the same item; the limit is exact because one runner holds a job at a time
   * (`JobStore.acquire`).
   */
  async claim(id: string, n: number, seconds: number): Promise<ClaimedItem[]> {
    const rows = await this.db.query(
      `WITH room AS (
         SELECT GREATEST(0, LEAST($2::int, COALESCE(j.item_limit, 2147483647) - j.done - j.failed
           - (SELECT count(*) FROM job_items WHERE job_id = $1 AND status = 'running' AND lease_until >= now())))::int AS n
         FROM jobs j WHERE j.id = $1),
       pick AS (
         SELECT id FROM (
           (SELECT id FROM job_items WHERE job_id = $1 AND status = 'pending' ORDER BY id LIMIT $2)
           UNION ALL
           (SELECT id FROM job_items WHERE job_id = $1 AND status = 'running' AND lease_until < now() ORDER BY id LIMIT $2)
         ) c ORDER BY id LIMIT (SELECT n FROM room))
       UPDATE job_items i SET status = 'running', attempts = i.attempts + 1, lease_until = now() + $3 * interval '1 second'
       FROM pick WHERE i.id = pick.id AND (i.status = 'pending' OR (i.status = 'running' AND i.lease_until < now()))
       RETURNING i.id, i.item_key, i.data, i.attempts`,
      [id, n, seconds],
      { prepared: true },
    );
    return toClaimed(rows);
  }

  /**
   * Hands claimed items back that never started (the turn yielded first): pending again, and
   * their claim is not counted as an attempt, since nothing was held or charged under it.
   */
  async handBack(itemIds: number[]): Promise<void> {
    if (itemIds.length === 0) return;
    await this.db.query(
      `UPDATE job_items SET status = 'pending', lease_until = NULL, attempts = GREATEST(0, attempts - 1) WHERE id = ANY($1::bigint[]) AND status = 'running'`,
      [itemIds],
    );
  }

  /** Every result of a job in the order its items were listed (seeded or found), with whether each failed. */
  async listed(jobId: string): Promise<{ result: unknown; failed: boolean; credits: number }[]> {
    const rows = await this.db.query(`SELECT result, status, credits FROM job_items WHERE job_id = $1 AND result_seq IS NOT NULL ORDER BY id`, [jobId]);
    return rows.map((r) => ({ result: r.result, failed: r.status === 'failed', credits: Number(r.credits) }));
  }

  /** Hands claimed items back after they started (the job was stopped or its key ran out of credits). */
  async unclaim(itemIds: number[]): Promise<void> {
    if (itemIds.length > 0) await this.db.query(`UPDATE job_items SET status = 'pending', lease_until = NULL WHERE id = ANY($1::bigint[]) AND status = 'running'`, [itemIds]);
  }

  /**
   * Records finished items and adds them to the job's counts and credits, and offers the new
   * items they found (keys the job holds are dropped), in one statement: an item's links are
   * durable no later than its result. When that leaves nothing to run (no other item running,
   * none pending unless the limit is reached) the same statement completes the job, as
   * `JobStore.finishIfDone` would. Answers the ids recorded (an item missing from it was no
   * longer this claim's: the job ended meanwhile, or a runner that outlived its lease finished
   * it) and whether the job completed.
   */
  async record(jobId: string, outcomes: ItemOutcome[], offers: NewItem[]): Promise<{ recorded: Set<number>; completed: boolean }> {
    // Without offers (a batch's items) the statement leaves the insert out: less to plan.
    const o = offers.length > 0 ? OFFER_CTE : `o AS (SELECT NULL::bigint AS id WHERE $2::text[] IS NULL AND $3::text[] IS NULL),`;
    const rows = await this.db.query(
      `WITH ${o}
       u AS (
         SELECT * FROM unnest($4::bigint[], $5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY AS u(id, status, result, credits, n)),
       d AS (
         UPDATE job_items i SET status = u.status, result = u.result::jsonb, credits = u.credits, lease_until = NULL,
           result_seq = CASE WHEN u.status = 'skipped' THEN NULL ELSE nextval('job_result_seq') END
         FROM u WHERE i.id = u.id AND i.status = 'running'
         RETURNING i.id, i.status, i.credits),
       c AS (
         SELECT (SELECT count(*) FROM d WHERE status = 'done') AS done, (SELECT count(*) FROM d WHERE status = 'failed') AS failed,
           (SELECT COALESCE(SUM(credits), 0) FROM d) AS credits),
       f AS (
         SELECT EXISTS (SELECT 1 FROM d) AND j.status IN ('queued', 'running')
           AND NOT EXISTS (SELECT 1 FROM job_items WHERE job_id = $1 AND status = 'running' AND lease_until >= now() AND id NOT IN (SELECT id FROM u))
           AND ((j.item_limit IS NOT NULL AND j.done + j.failed + c.done + c.failed >= j.item_limit)
             OR (NOT EXISTS (SELECT 1 FROM o)
               AND NOT EXISTS (SELECT 1 FROM job_items WHERE job_id = $1 AND (status = 'pending' OR (status = 'running' AND lease_until < now())) AND id NOT IN (SELECT id FROM u))))
           AS fin
         FROM jobs j, c WHERE j.id = $1),
       upd AS (
         UPDATE jobs SET done = jobs.done + c.done, failed = jobs.failed + c.failed, credits_charged = jobs.credits_charged + c.credits,
           status = CASE WHEN f.fin THEN 'completed' ELSE jobs.status END, finished_at = CASE WHEN f.fin THEN now() ELSE jobs.finished_at END,
           runner = CASE WHEN f.fin THEN NULL ELSE jobs.runner END, runner_until = CASE WHEN f.fin THEN NULL ELSE jobs.runner_until END
         FROM c, f
         WHERE jobs.id = $1 AND (c.done + c.failed > 0 OR f.fin) AND (NOT f.fin OR jobs.status IN ('queued', 'running'))
         RETURNING f.fin)
       SELECT id, (SELECT bool_or(fin) FROM upd) AS completed FROM d`,
      [
        jobId,
        offers.map((o) => o.key),
        offers.map((o) => json(o.data)),
        outcomes.map((o) => o.id),
        outcomes.map((o) => o.status),
        outcomes.map((o) => json(o.result)),
        outcomes.map((o) => o.credits),
      ],
      { prepared: true },
    );
    return { recorded: new Set(rows.map((r) => Number(r.id))), completed: rows.some((r) => r.completed === true) };
  }
}
