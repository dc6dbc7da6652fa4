/**
 * The job tables (migration 7) on either store: job rows, item rows keyed `(job_id, item_key)`,
 * claims with leases so a killed instance's work is taken over, and results paged by the order
 * they finished in.
 */
import type { Db, Row } from '../storage/db.js';
import type { ClaimedItem, JobRecord, JobStatus, ResultPage } from './types.js';
import { JobItems } from './item-store.js';

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

function toRecord(r: Row): JobRecord {
  return {
    id: r.id,
    keyId: r.key_id,
    type: r.type,
    target: r.target,
    provider: r.provider ?? null,
    stepwise: r.stepwise,
    input: r.input,
    options: r.options ?? null,
    webhook: r.webhook ?? null,
    status: r.status,
    seeded: r.seeded,
    itemLimit: r.item_limit ?? null,
    total: r.total ?? null,
    done: Number(r.done),
    failed: Number(r.failed),
    creditsCharged: Number(r.credits_charged),
    data: r.data ?? null,
    errorCode: r.error_code ?? null,
    errorMessage: r.error_message ?? null,
    createdAt: new Date(r.created_at),
    startedAt: r.started_at ? new Date(r.started_at) : null,
    finishedAt: r.finished_at ? new Date(r.finished_at) : null,
  };
}

/** Filters of a job listing. */
export interface JobQuery {
  keyId?: string;
  status?: JobStatus;
  target?: string;
  page: number;
  limit: number;
}

/** SQL access to jobs and their items. */
export class JobStore {
  /** A stepwise job's item statements. */
  readonly items: JobItems;

  constructor(private readonly db: Db) {
    this.items = new JobItems(db);
  }

  /**
   * Records a new queued job. A job without steps gets its one item (its call) in the same
   * statement, so its first turn only has to claim it.
   */
  async insert(j: Pick<JobRecord, 'id' | 'keyId' | 'type' | 'target' | 'provider' | 'stepwise' | 'input' | 'options' | 'webhook'>): Promise<JobRecord> {
    const [r] = await this.db.query(
      `WITH j AS (
         INSERT INTO jobs (id, key_id, type, target, provider, stepwise, input, options, webhook, status, seeded, item_limit, total)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, 'queued', NOT $6, CASE WHEN $6 THEN NULL ELSE 1 END, CASE WHEN $6 THEN NULL ELSE 1 END)
         RETURNING *),
       i AS (INSERT INTO job_items (job_id, item_key, status) SELECT id, 'call', 'pending' FROM j WHERE NOT stepwise)
       SELECT * FROM j`,
      [j.id, j.keyId, j.type, j.target, j.provider, j.stepwise, json(j.input), json(j.options), json(j.webhook)],
    );
    return toRecord(r!);
  }

  /** A job by id (any key), or undefined. */
  async get(id: string): Promise<JobRecord | undefined> {
    const [r] = await this.db.query('SELECT * FROM jobs WHERE id = $1', [id]);
    return r ? toRecord(r) : undefined;
  }

  /** Jobs newest first. */
  async list(q: JobQuery): Promise<JobRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.keyId) where.push(`key_id = $${params.push(q.keyId)}`);
    if (q.status) where.push(`status = $${params.push(q.status)}`);
    if (q.target) where.push(`target = $${params.push(q.target)}`);
    const sql = `SELECT * FROM jobs ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY created_at DESC, id LIMIT $${params.push(q.limit)} OFFSET $${params.push((q.page - 1) * q.limit)}`;
    return (await this.db.query(sql, params)).map(toRecord);
  }

  /** Ends a job that has not ended yet; false when it already had (a cancel got there first). */
  async finish(id: string, status: 'completed' | 'failed' | 'cancelled', fields: { errorCode?: string; errorMessage?: string; data?: unknown; credits?: number; done?: number } = {}): Promise<boolean> {
    // Items still claimed end with the job (a cancelled item that finishes later is not kept).
    const rows = await this.db.query(
      `WITH i AS (UPDATE job_items SET status = 'skipped', lease_until = NULL WHERE job_id = $1 AND status = 'running')
       UPDATE jobs SET status = $2, finished_at = now(), error_code = $3, error_message = $4,
         data = COALESCE($5::jsonb, data), credits_charged = credits_charged + $6, done = done + $7, runner = NULL, runner_until = NULL
       WHERE id = $1 AND status IN ('queued', 'running') RETURNING id`,
      [id, status, fields.errorCode ?? null, fields.errorMessage ?? null, json(fields.data), fields.credits ?? 0, fields.done ?? 0],
    );
    return rows.length > 0;
  }

  /** Adds a finished call's charge and output to a job that ended meanwhile (cancelled while its call completed). */
  async record(id: string, credits: number, data: unknown): Promise<void> {
    await this.db.query('UPDATE jobs SET credits_charged = credits_charged + $2, done = done + 1, data = $3::jsonb WHERE id = $1', [id, credits, json(data)]);
  }

  /**
   * Takes the job's runner claim for `seconds` and starts a queued job (while its key runs fewer
   * than `maxRunningPerKey`), in one statement; answers the job and whether this call started it,
   * or undefined while another instance's claim is live, the key is at its limit, or the job ended. One runner at a time keeps a job's turns from multiplying when a turn
   * outlives its lease.
   */
  async acquire(id: string, runner: string, seconds: number, maxRunningPerKey: number): Promise<{ job: JobRecord; started: boolean } | undefined> {
    const [r] = await this.db.query(
      `WITH old AS (SELECT id, key_id, status FROM jobs WHERE id = $1 FOR UPDATE)
       UPDATE jobs SET runner = $2, runner_until = now() + $3 * interval '1 second',
         status = 'running', started_at = COALESCE(jobs.started_at, now())
       FROM old WHERE jobs.id = old.id AND old.status IN ('queued', 'running') AND (jobs.runner IS NULL OR jobs.runner = $2 OR jobs.runner_until < now())
         AND (old.status = 'running' OR (SELECT count(*) FROM jobs o WHERE o.key_id = old.key_id AND o.status = 'running') < $4)
       RETURNING jobs.*, old.status AS was`,
      [id, runner, seconds, maxRunningPerKey],
    );
    return r ? { job: toRecord(r), started: r.was === 'queued' } : undefined;
  }

  /** Seconds until another runner's claim on the job lapses (0 when none is live). */
  async claimLeft(id: string): Promise<number> {
    const [r] = await this.db.query(`SELECT GREATEST(0, EXTRACT(EPOCH FROM (runner_until - now())))::float AS s FROM jobs WHERE id = $1 AND runner IS NOT NULL`, [id]);
    return r ? Number(r.s) : 0;
  }

  /** Gives up this runner's claim (the job goes back to the queue, or ended). */
  async releaseRunner(id: string, runner: string): Promise<void> {
    await this.db.query('UPDATE jobs SET runner = NULL, runner_until = NULL WHERE id = $1 AND runner = $2', [id, runner]);
  }

  /** Renews the runner's claim and its items' leases; answers the job's status (a cancel shows here). */
  async heartbeat(id: string, runner: string, itemIds: number[], seconds: number): Promise<string | undefined> {
    if (itemIds.length > 0) await this.db.query(`UPDATE job_items SET lease_until = now() + $2 * interval '1 second' WHERE id = ANY($1::bigint[]) AND status = 'running'`, [itemIds, seconds]);
    const [r] = await this.db.query(`UPDATE jobs SET runner_until = now() + $3 * interval '1 second' WHERE id = $1 AND runner = $2 RETURNING status`, [id, runner, seconds]);
    if (r) return r.status;
    return (await this.get(id))?.status;
  }

  /** Claims a single-result job's one item (its call), if it is not claimed under a live lease. */
  async claimCall(id: string, seconds: number): Promise<ClaimedItem | undefined> {
    const [r] = await this.db.query(
      `UPDATE job_items SET status = 'running', attempts = attempts + 1, lease_until = now() + $2 * interval '1 second'
       WHERE job_id = $1 AND item_key = 'call' AND (status = 'pending' OR (status = 'running' AND lease_until < now()))
       RETURNING id, item_key, data, attempts`,
      [id, seconds],
    );
    return r ? { id: Number(r.id), key: r.item_key, data: undefined, attempts: Number(r.attempts) } : undefined;
  }

  /** Items not finished: pending, or running under a live lease. */
  async open(id: string): Promise<{ pending: number; running: number; results: number; limit: number | null }> {
    const [r] = await this.db.query(
      `SELECT count(*) FILTER (WHERE i.status = 'pending' OR (i.status = 'running' AND i.lease_until < now()))::int AS pending,
              count(*) FILTER (WHERE i.status = 'running' AND i.lease_until >= now())::int AS running,
              count(*) FILTER (WHERE i.result_seq IS NOT NULL)::int AS results,
              max(j.item_limit) AS lim
       FROM jobs j LEFT JOIN job_items i ON i.job_id = j.id WHERE j.id = $1`,
      [id],
    );
    return { pending: Number(r?.pending ?? 0), running: Number(r?.running ?? 0), results: Number(r?.results ?? 0), limit: r?.lim ?? null };
  }

  /**
   * Completes a job with nothing left to run, in one statement: no item running under a live
   * lease, and none pending unless the job has as many results as its limit. False otherwise, or
   * when the job had ended.
   */
  async finishIfDone(id: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE jobs j SET status = 'completed', finished_at = now(), runner = NULL, runner_until = NULL
       WHERE j.id = $1 AND j.status IN ('queued', 'running')
         AND NOT EXISTS (SELECT 1 FROM job_items WHERE job_id = $1 AND status = 'running' AND lease_until >= now())
         AND ((j.item_limit IS NOT NULL AND j.done + j.failed >= j.item_limit)
           OR NOT EXISTS (SELECT 1 FROM job_items WHERE job_id = $1 AND (status = 'pending' OR (status = 'running' AND lease_until < now()))))
       RETURNING j.id`,
      [id],
      { prepared: true },
    );
    return rows.length > 0;
  }

  /** Results after `cursor`, in the order they finished. */
  async results(id: string, cursor: number, limit: number): Promise<ResultPage> {
    const rows = await this.db.query(
      `SELECT result, result_seq FROM job_items WHERE job_id = $1 AND result_seq > $2 ORDER BY result_seq LIMIT $3`,
      [id, cursor, limit + 1],
    );
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    return { items: page.map((r) => r.result), next: more ? String(page[page.length - 1]!.result_seq) : null };
  }

  /** Credits already charged under any of `requestIds` (an item charged by an instance that died before recording it). */
  async charged(requestIds: string[]): Promise<number> {
    if (requestIds.length === 0) return 0;
    const [r] = await this.db.query(`SELECT COALESCE(-SUM(amount), 0)::bigint AS c FROM ledger WHERE kind = 'charge' AND request_id = ANY($1::text[])`, [requestIds]);
    return Number(r?.c ?? 0);
  }

  /** Jobs that ended before `before` (a batch of them), for the retention sweep. */
  async expired(before: Date, limit = 100): Promise<string[]> {
    const rows = await this.db.query('SELECT id FROM jobs WHERE finished_at < $1 ORDER BY finished_at LIMIT $2', [before, limit]);
    return rows.map((r) => r.id as string);
  }

  /** A job's input and outputs as JSON text (its input, data and every item result), where its file links are. */
  async outputs(id: string): Promise<string[]> {
    const rows = await this.db.query(
      `SELECT input::text AS t FROM jobs WHERE id = $1
       UNION ALL SELECT data::text FROM jobs WHERE id = $1 AND data IS NOT NULL
       UNION ALL SELECT result::text FROM job_items WHERE job_id = $1 AND result IS NOT NULL`,
      [id],
    );
    return rows.map((r) => r.t as string);
  }

  /** Replaces a job's stored input (its large input's file reference, once the file is stored). */
  async setInput(id: string, input: unknown): Promise<void> {
    await this.db.query('UPDATE jobs SET input = $2::jsonb WHERE id = $1', [id, json(input)]);
  }

  /** Which of `ids` are jobs still recorded. */
  async existing(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.query('SELECT id FROM jobs WHERE id = ANY($1::text[])', [ids]);
    return new Set(rows.map((r) => r.id as string));
  }

  /** Deletes jobs (their items go with them). */
  async remove(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.db.query('DELETE FROM jobs WHERE id = ANY($1::text[])', [ids]);
  }

  /** Jobs per status, and the age of the oldest queued job (s), for /metrics. */
  async gauges(): Promise<{ byStatus: Record<string, number>; oldestQueuedSeconds: number }> {
    const rows = await this.db.query('SELECT status, count(*)::int AS n FROM jobs GROUP BY status');
    const [o] = await this.db.query(`SELECT COALESCE(EXTRACT(EPOCH FROM (now() - min(created_at))), 0)::float AS s FROM jobs WHERE status = 'queued'`);
    return { byStatus: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])), oldestQueuedSeconds: Number(o?.s ?? 0) };
  }
}
