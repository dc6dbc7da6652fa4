/**
 * SQL for a stepwise job's items (table `job_items`, migration 7), one statement per call so an
 * item costs the store as few round trips as possible (issue 25, bench:jobs): items are seeded,
 * claimed and handed back in batches, and finished items are recorded many at once together with
 * the new items they found and the job's counts and credits.
 */
import type { Queryable } from '../storage/db.js';
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

/** Item statements of the job tables. */
export class JobItems {
  constructor(private readonly db: Queryable) {}

  /** Records the seeded items and the job's limit; items whose key the job holds are dropped. */
  async seed(id: string, items: NewItem[], limit: number, total: number | null): Promise<void> {
    await this.db.query(
      `WITH i AS (
         INSERT INTO job_items (job_id, item_key, data, status)
         SELECT $1, k, d::jsonb, 'pending' FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(k, d, n) ORDER BY n
         ON CONFLICT (job_id, item_key) DO NOTHING)
       UPDATE jobs SET seeded = TRUE, item_limit = $4, total = $5 WHERE id = $1`,
      [id, items.map((i) => i.key), items.map((i) => json(i.data)), limit, total],
    );
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
    return rows
      .map((r) => ({ id: Number(r.id), key: r.item_key as string, data: r.data ?? undefined, attempts: Number(r.attempts) }))
      .sort((a, b) => a.id - b.id);
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

  /** Hands claimed items back after they started (the job was stopped or its key ran out of credits). */
  async unclaim(itemIds: number[]): Promise<void> {
    if (itemIds.length > 0) await this.db.query(`UPDATE job_items SET status = 'pending', lease_until = NULL WHERE id = ANY($1::bigint[]) AND status = 'running'`, [itemIds]);
  }

  /**
   * Records finished items and adds them to the job's counts and credits, and offers the new
   * items they found (keys the job holds are dropped), in one statement: an item's links are
   * durable no later than its result. Answers the ids recorded; an item missing from it was no
   * longer this claim's (the job ended meanwhile, or a runner that outlived its lease finished it).
   */
  async record(jobId: string, outcomes: ItemOutcome[], offers: NewItem[]): Promise<Set<number>> {
    const rows = await this.db.query(
      `WITH o AS (
         INSERT INTO job_items (job_id, item_key, data, status)
         SELECT $1, k, d::jsonb, 'pending' FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(k, d, n) ORDER BY n
         ON CONFLICT (job_id, item_key) DO NOTHING),
       u AS (
         SELECT * FROM unnest($4::bigint[], $5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY AS u(id, status, result, credits, n)),
       d AS (
         UPDATE job_items i SET status = u.status, result = u.result::jsonb, credits = u.credits, lease_until = NULL,
           result_seq = CASE WHEN u.status = 'skipped' THEN NULL ELSE nextval('job_result_seq') END
         FROM u WHERE i.id = u.id AND i.status = 'running'
         RETURNING i.id, i.status, i.credits),
       j AS (
         UPDATE jobs SET
           done = done + (SELECT count(*) FROM d WHERE status = 'done'),
           failed = failed + (SELECT count(*) FROM d WHERE status = 'failed'),
           credits_charged = credits_charged + (SELECT COALESCE(SUM(credits), 0) FROM d)
         WHERE id = $1 AND EXISTS (SELECT 1 FROM d WHERE status <> 'skipped'))
       SELECT id FROM d`,
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
    return new Set(rows.map((r) => Number(r.id)));
  }
}
