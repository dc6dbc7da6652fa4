/**
 * Monitors in the service's database (embedded or PostgreSQL), and the two statements that make
 * runs happen once per tick across instances: `claimDue` moves a due monitor's next run forward
 * and hands its tick to exactly one claimer; `startRun` lets exactly one worker run that tick.
 */
import { randomBytes } from 'node:crypto';
import type { Db, Row } from '../storage/db.js';
import type { ClaimedRun, Monitor, MonitorLastRun, MonitorPatch, MonitorWebhook } from './types.js';
import { monitorTag } from './monitor-tag.js';

function rowToMonitor(r: Row): Monitor {
  return {
    id: r.id,
    keyId: r.key_id,
    url: r.url,
    options: JSON.parse(r.options),
    intervalMs: Number(r.interval_ms),
    webhook: r.webhook ? (JSON.parse(r.webhook) as MonitorWebhook) : null,
    status: r.status,
    nextRunAt: new Date(r.next_run_at),
    lastRun: r.last_run ? (JSON.parse(r.last_run) as MonitorLastRun) : null,
    runs: Number(r.runs),
    changes: Number(r.changes),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** What a new monitor needs. */
export interface NewMonitor {
  keyId: string;
  url: string;
  options: Record<string, unknown>;
  intervalMs: number;
  webhook: MonitorWebhook | null;
}

/** Reads and writes monitors. */
export class MonitorStore {
  constructor(private readonly db: Db) {}

  /** Creates a monitor whose first run is due now (it takes the baseline snapshot). */
  async create(m: NewMonitor): Promise<Monitor> {
    const id = `mon_${randomBytes(12).toString('base64url')}`;
    const rows = await this.db.query(
      `INSERT INTO monitors (id, key_id, url, options, interval_ms, webhook, next_run_at)
       VALUES ($1, $2, $3, $4, $5, $6, now()) RETURNING *`,
      [id, m.keyId, m.url, JSON.stringify(m.options), m.intervalMs, m.webhook ? JSON.stringify(m.webhook) : null],
    );
    return rowToMonitor(rows[0]!);
  }

  /** How many monitors a key has (for the per-key cap). */
  async countFor(keyId: string): Promise<number> {
    const rows = await this.db.query(`SELECT count(*)::int AS n FROM monitors WHERE key_id = $1`, [keyId]);
    return Number(rows[0]!.n);
  }

  /** The key's monitor, or null (another key's monitor is null too). */
  async get(keyId: string, id: string): Promise<Monitor | null> {
    const rows = await this.db.query(`SELECT * FROM monitors WHERE id = $1 AND key_id = $2`, [id, keyId]);
    return rows[0] ? rowToMonitor(rows[0]) : null;
  }

  /** The key's monitors, newest first, and how many it has in all. */
  async list(keyId: string, page: number, limit: number): Promise<{ monitors: Monitor[]; total: number }> {
    const rows = await this.db.query(`SELECT * FROM monitors WHERE key_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`, [keyId, limit, (page - 1) * limit]);
    return { monitors: rows.map(rowToMonitor), total: await this.countFor(keyId) };
  }

  /**
   * Applies a key's change. A new interval or a resume schedules the next run one interval from
   * now, so an edit never makes a run happen at once or twice.
   */
  async update(keyId: string, id: string, patch: MonitorPatch): Promise<Monitor | null> {
    const rows = await this.db.query(
      `UPDATE monitors SET
         options = COALESCE($3, options),
         interval_ms = COALESCE($4, interval_ms),
         webhook = CASE WHEN $5::boolean THEN $6 ELSE webhook END,
         status = COALESCE($7, status),
         next_run_at = CASE WHEN $4::bigint IS NOT NULL OR ($7::text = 'active' AND status = 'paused')
                            THEN now() + COALESCE($4::bigint, interval_ms) * interval '1 millisecond' ELSE next_run_at END,
         updated_at = now()
       WHERE id = $1 AND key_id = $2 RETURNING *`,
      [
        id,
        keyId,
        patch.options ? JSON.stringify(patch.options) : null,
        patch.intervalMs ?? null,
        patch.webhook !== undefined,
        patch.webhook ? JSON.stringify(patch.webhook) : null,
        patch.status ?? null,
      ],
    );
    return rows[0] ? rowToMonitor(rows[0]) : null;
  }

  /**
   * Deletes the key's monitor and the snapshot its runs compared against (page_snapshots, tag
   * `monitor:<id>`: see monitorTag), which nothing else reads; false when the key has no monitor by that id.
   * The monitor goes first and its snapshots in a later statement: a run still going writes its
   * snapshot only while the monitor exists (the page store checks, locking the row), so a write
   * that got in first has committed before this second statement looks, and one after it keeps nothing.
   */
  async delete(keyId: string, id: string): Promise<boolean> {
    const rows = await this.db.query(`DELETE FROM monitors WHERE id = $1 AND key_id = $2 RETURNING id`, [id, keyId]);
    if (!rows.length) return false;
    await this.db.query(`DELETE FROM page_snapshots WHERE key_id = $1 AND tag = $2`, [keyId, monitorTag(id)]);
    return true;
  }

  /**
   * Claims up to `limit` due monitors: each one's next run moves to its first tick after now
   * (ticks missed while no instance ran are skipped, not caught up), and the tick claimed is
   * returned. Rows another instance is claiming are skipped, so every tick has one claimer.
   */
  async claimDue(limit: number): Promise<ClaimedRun[]> {
    const rows = await this.db.query(
      `WITH due AS (
         SELECT id, next_run_at FROM monitors
         WHERE status = 'active' AND next_run_at <= now()
         ORDER BY next_run_at LIMIT $1 FOR UPDATE SKIP LOCKED
       )
       UPDATE monitors m SET next_run_at = due.next_run_at
         + m.interval_ms * (floor(extract(epoch FROM (now() - due.next_run_at)) * 1000 / m.interval_ms) + 1) * interval '1 millisecond'
       FROM due WHERE m.id = due.id
       RETURNING m.id, floor(extract(epoch FROM due.next_run_at) * 1000)::bigint AS tick`,
      [limit],
    );
    return rows.map((r) => ({ id: r.id, tick: Number(r.tick) }));
  }

  /**
   * Marks `tick` as running and returns the monitor, or null when this tick already ran (a queue
   * entry delivered twice), the monitor was paused or deleted meanwhile, or its previous run is
   * still going (that tick is skipped: runs of one monitor never overlap). A run older than
   * `staleMs` counts as lost with its instance.
   */
  async startRun(id: string, tick: number, staleMs: number): Promise<Monitor | null> {
    const rows = await this.db.query(
      `UPDATE monitors SET last_tick = $2, run_started_at = now()
       WHERE id = $1 AND last_tick < $2 AND status = 'active'
         AND (run_started_at IS NULL OR run_started_at < now() - $3 * interval '1 millisecond')
       RETURNING *`,
      [id, tick, staleMs],
    );
    return rows[0] ? rowToMonitor(rows[0]) : null;
  }

  /** Records what the run of `tick` found. */
  async finishRun(id: string, tick: number, last: MonitorLastRun, changed: boolean): Promise<void> {
    await this.db.query(`UPDATE monitors SET last_run = $3, runs = runs + 1, changes = changes + $4, run_started_at = NULL, updated_at = now() WHERE id = $1 AND last_tick = $2`, [
      id,
      tick,
      JSON.stringify(last),
      changed ? 1 : 0,
    ]);
  }
}
