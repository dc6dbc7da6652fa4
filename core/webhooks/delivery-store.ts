/**
 * The record of webhook deliveries (issue 25): one row per event (its body is fixed when the
 * event happens, so every retry sends the same bytes) and one per attempt made, which
 * `GET /api/v2/jobs/:id/deliveries` lists.
 */
import type { Db } from '../storage/db.js';

/** Where an event stands: still trying, answered with a 2xx, or given up on. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** An event as the dispatcher needs it for an attempt. */
export interface StoredEvent {
  id: string;
  keyId: string;
  jobId: string;
  type: string;
  url: string;
  body: string;
  status: DeliveryStatus;
}

/** One attempt as recorded. */
export interface DeliveryAttempt {
  attempt: number;
  attemptedAt: string;
  /** The receiver's HTTP status, or null when no answer came. */
  status: number | null;
  /** Why the attempt failed, when it did without an answer (timeout, refused URL, network). */
  error: string | null;
  durationMs: number;
}

/** One event with its attempts, as listed to the key holder. */
export interface DeliveryView {
  id: string;
  type: string;
  url: string;
  status: DeliveryStatus;
  createdAt: string;
  attempts: DeliveryAttempt[];
}

/** Reads and writes delivery records. */
export class WebhookDeliveries {
  constructor(private readonly db: Db) {}

  /** Records a new event, pending. */
  async addEvent(e: Omit<StoredEvent, 'status'>): Promise<void> {
    await this.db.query('INSERT INTO webhook_events (id, key_id, job_id, type, url, body) VALUES ($1,$2,$3,$4,$5,$6)', [e.id, e.keyId, e.jobId, e.type, e.url, e.body]);
  }

  /** One event, or null when it is gone (its key deleted). */
  async event(id: string): Promise<StoredEvent | null> {
    const rows = await this.db.query('SELECT id, key_id, job_id, type, url, body, status FROM webhook_events WHERE id = $1', [id]);
    const r = rows[0];
    return r ? { id: r.id, keyId: r.key_id, jobId: r.job_id, type: r.type, url: r.url, body: r.body, status: r.status } : null;
  }

  /** Records one attempt; its number follows the event's last one. */
  async addAttempt(eventId: string, a: Omit<DeliveryAttempt, 'attempt'>): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_attempts (event_id, attempt, attempted_at, status, error, duration_ms)
       SELECT $1, COALESCE(MAX(attempt), 0) + 1, $2, $3, $4, $5 FROM webhook_attempts WHERE event_id = $1`,
      [eventId, a.attemptedAt, a.status, a.error, a.durationMs],
    );
  }

  /** Marks an event delivered or given up on. */
  async setStatus(eventId: string, status: DeliveryStatus): Promise<void> {
    await this.db.query('UPDATE webhook_events SET status = $2 WHERE id = $1', [eventId, status]);
  }

  /** How many of the key's events are still pending (counted up to `cap`). */
  async pendingCount(keyId: string, cap = 100_000): Promise<number> {
    const rows = await this.db.query("SELECT count(*) AS n FROM (SELECT 1 FROM webhook_events WHERE key_id = $1 AND status = 'pending' LIMIT $2) p", [keyId, cap]);
    return Number(rows[0]?.n ?? 0);
  }

  /** True when the key has recorded events for this job. */
  async hasJob(keyId: string, jobId: string): Promise<boolean> {
    const rows = await this.db.query('SELECT 1 FROM webhook_events WHERE key_id = $1 AND job_id = $2 LIMIT 1', [keyId, jobId]);
    return rows.length > 0;
  }

  /**
   * A page of the key's job's events, oldest first, each with every attempt made so far (a crawl of
   * thousands of pages has as many `job.page` events, so the list is paged like the usage log).
   */
  async listForJob(keyId: string, jobId: string, page = 1, limit = 50): Promise<DeliveryView[]> {
    const events = await this.db.query(
      'SELECT id, type, url, status, created_at FROM webhook_events WHERE key_id = $1 AND job_id = $2 ORDER BY created_at, id LIMIT $3 OFFSET $4',
      [keyId, jobId, limit, (page - 1) * limit],
    );
    if (events.length === 0) return [];
    const attempts = await this.db.query(
      'SELECT event_id, attempt, attempted_at, status, error, duration_ms FROM webhook_attempts WHERE event_id = ANY($1::text[]) ORDER BY event_id, attempt',
      [events.map((e) => e.id)],
    );
    const byEvent = new Map<string, DeliveryAttempt[]>();
    for (const a of attempts) {
      const list = byEvent.get(a.event_id) ?? [];
      list.push({ attempt: Number(a.attempt), attemptedAt: new Date(a.attempted_at).toISOString(), status: a.status === null ? null : Number(a.status), error: a.error, durationMs: Number(a.duration_ms) });
      byEvent.set(a.event_id, list);
    }
    return events.map((e) => ({ id: e.id, type: e.type, url: e.url, status: e.status, createdAt: new Date(e.created_at).toISOString(), attempts: byEvent.get(e.id) ?? [] }));
  }

  /** Removes the job's events and their attempts (the job engine calls it when it purges the job). */
  async removeForJob(keyId: string, jobId: string): Promise<void> {
    await this.db.query('DELETE FROM webhook_events WHERE key_id = $1 AND job_id = $2', [keyId, jobId]);
  }
}
