/**
 * Ledger on a shared PostgreSQL database, for several instances behind a load balancer. Every
 * movement is one atomic statement, so two instances can never both spend the same credits.
 */
import type { Db, Queryable } from '../storage/db.js';
import type { KeyRecord } from '../keys/types.js';
import type { Balance, Ledger, LedgerEntry } from './ledger.js';
import { periodEndOf } from './ledger.js';
import { readEntries } from './ledger-rows.js';
import { GroupCommitter } from '../storage/group-commit.js';
import { periodStartOf } from '../keys/secret.js';
import { InputError, InsufficientCreditsError, NotFoundError } from '../errors.js';

/** Reservations older than this belong to a crashed instance and are released. */
const STALE_RESERVATION_MS = 15 * 60_000;

/**
 * Moves $2 credits of key $1 from spendable to held when its credits and its budget for the period
 * starting $3 allow it (rolling the period over first); returns the key's id, or no row.
 */
const HOLD_ON_KEY = `UPDATE api_keys SET
    period_spent = CASE WHEN period_start < $3 THEN 0 ELSE period_spent END,
    period_start = GREATEST(period_start, $3),
    credits = credits - $2,
    reserved = reserved + $2
  WHERE id = $1 AND credits >= $2
    AND (budget IS NULL OR (CASE WHEN period_start < $3 THEN 0 ELSE period_spent END) + reserved + $2 <= budget)
  RETURNING id`;

/** PostgreSQL aborts one of two statements that lock rows in opposite orders (deadlock) or collide under serialisable isolation. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Runs an atomic statement again when PostgreSQL aborted it as a deadlock victim. A settlement
 * batch updates several keys' rows in no fixed order, so two instances settling overlapping keys
 * can deadlock; the aborted statement changed nothing, so running it again is safe.
 */
export async function retryOnConflict<T>(run: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (err) {
      if (i >= attempts || !RETRYABLE.has((err as { code?: string })?.code ?? '')) throw err;
      await new Promise((r) => setTimeout(r, 5 * i + Math.random() * 20));
    }
  }
}

/** PostgreSQL ledger. */
export class SqlLedger implements Ledger {
  private readonly reaper: NodeJS.Timeout;
  /** Settlements of concurrent requests share one statement (group commit). */
  private readonly settler: GroupCommitter<[string, number, string], number>;
  /** So do reservations (issue 18): one statement per batch instead of one per call. */
  private readonly reserver: GroupCommitter<[string, string, number], boolean>;

  constructor(private readonly db: Db) {
    this.reserver = new GroupCommitter(db, (q, batch) => retryOnConflict(() => this.reserveBatch(q, batch)), 1, 'reserve');
    this.settler = new GroupCommitter(db, (q, batch) => retryOnConflict(() => this.settleBatch(q, batch)), 1, 'settle');
    this.reaper = setInterval(() => void retryOnConflict(() => this.reapStale()).catch(() => {}), 60_000);
    this.reaper.unref();
  }

  /**
   * Reserves through the batch; a call the batch could not fit (its key's earlier items in the
   * batch took the credits, or another instance changed the key meanwhile) is decided again on
   * its own, so a refusal is exactly what the one-call statement would answer against the
   * balance as it is then (no request is refused that fits).
   */
  async reserve(key: KeyRecord, requestId: string, amount: number): Promise<void> {
    if (amount === 0) return;
    if (await this.reserver.submit([requestId, key.id, amount])) return;
    await this.reserveOne(key, requestId, amount);
  }

  /**
   * Reserves a batch in one atomic statement with per-key ordering: each key's items are taken
   * in batch order while their running total fits its credits and budget. The running totals
   * are computed from a snapshot, so the UPDATE checks each key's whole share again on the row
   * it locks (PostgreSQL re-reads it under concurrent writers): a key whose share no longer fits
   * reserves nothing here, and its items go to `reserveOne`. Never overspends.
   */
  private async reserveBatch(q: Queryable, batch: [string, string, number][]): Promise<boolean[]> {
    const rows = await q.query(
      `WITH s AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY AS s(request_id, key_id, amount, n)),
       cur AS (
         SELECT id, credits, reserved, budget, CASE WHEN period_start < $4 THEN 0 ELSE period_spent END AS spent
         FROM api_keys WHERE id IN (SELECT key_id FROM s)),
       cum AS (
         SELECT s.request_id, s.key_id, s.amount, SUM(s.amount) OVER (PARTITION BY s.key_id ORDER BY s.n) AS running FROM s),
       fit AS (
         SELECT cum.* FROM cum JOIN cur ON cur.id = cum.key_id
         WHERE cum.running <= cur.credits AND (cur.budget IS NULL OR cur.spent + cur.reserved + cum.running <= cur.budget)),
       agg AS (SELECT key_id, SUM(amount) AS total FROM fit GROUP BY key_id),
       k AS (
         UPDATE api_keys a SET
           period_spent = CASE WHEN a.period_start < $4 THEN 0 ELSE a.period_spent END,
           period_start = GREATEST(a.period_start, $4),
           credits = a.credits - agg.total,
           reserved = a.reserved + agg.total
         FROM agg
         WHERE a.id = agg.key_id AND a.credits >= agg.total
           AND (a.budget IS NULL OR (CASE WHEN a.period_start < $4 THEN 0 ELSE a.period_spent END) + a.reserved + agg.total <= a.budget)
         RETURNING a.id),
       ins AS (
         INSERT INTO reservations (request_id, key_id, amount)
         SELECT fit.request_id, fit.key_id, fit.amount FROM fit JOIN k ON k.id = fit.key_id RETURNING request_id)
       SELECT request_id FROM ins`,
      [batch.map((b) => b[0]), batch.map((b) => b[1]), batch.map((b) => b[2]), periodStartOf()],
      { prepared: true },
    );
    const taken = new Set(rows.map((r) => r.request_id as string));
    return batch.map((b) => taken.has(b[0]));
  }

  /** One reservation in one atomic statement (the exact decision for a call the batch did not fit). */
  private async reserveOne(key: KeyRecord, requestId: string, amount: number): Promise<void> {
    const period = periodStartOf();
    const rows = await this.db.query(
      `WITH k AS (${HOLD_ON_KEY})
       INSERT INTO reservations (request_id, key_id, amount) SELECT $4, id, $2 FROM k RETURNING key_id`,
      [key.id, amount, period, requestId],
      { prepared: true },
    );
    if (rows.length === 1) return;
    throw await this.refusal(this.db, key.id, amount);
  }

  /** Why `amount` could not be held for key `keyId`: its credits, or else its budget. */
  private async refusal(q: Queryable, keyId: string, amount: number): Promise<InsufficientCreditsError> {
    const [k] = await q.query('SELECT credits FROM api_keys WHERE id = $1', [keyId]);
    return new InsufficientCreditsError(k && Number(k.credits) >= amount ? 'BUDGET_EXCEEDED' : 'INSUFFICIENT_CREDITS');
  }

  /**
   * Grows a reservation in one transaction that locks its row first, as settlement and release
   * do (same lock order, and a hold being settled or released cannot grow), then takes the
   * credits from the key under the same checks as `reserve`. Rare (measured inputs), so not batched.
   */
  async extend(key: KeyRecord, requestId: string, amount: number): Promise<void> {
    if (amount <= 0) return;
    await retryOnConflict(() =>
      this.db.transaction(async (tx) => {
        const [r] = await tx.query('SELECT key_id FROM reservations WHERE request_id = $1 FOR UPDATE', [requestId]);
        if (!r) return;
        const period = periodStartOf();
        const taken = await tx.query(HOLD_ON_KEY, [r.key_id, amount, period]);
        if (taken.length === 0) throw await this.refusal(tx, r.key_id, amount);
        await tx.query('UPDATE reservations SET amount = amount + $2 WHERE request_id = $1', [requestId, amount]);
      }),
    );
  }

  settle(requestId: string, actual: number, target: string): Promise<number> {
    return this.settler.submit([requestId, Math.max(0, actual), target]);
  }

  /**
   * Settles a batch in one atomic statement: each reservation is deleted (so a second settle
   * finds nothing and charges nothing), its key credited with the unused part, and a ledger row
   * written per charge whose balance_after runs down in batch order. Returns what each request
   * was charged.
   */
  private async settleBatch(q: Queryable, batch: [string, number, string][]): Promise<number[]> {
    const rows = await q.query(
      `WITH s AS (
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY AS s(request_id, actual, target, n)),
       r AS (
         DELETE FROM reservations res USING s WHERE res.request_id = s.request_id
         RETURNING res.request_id, res.key_id, res.amount, LEAST(s.actual, res.amount) AS charged, s.target, s.n),
       agg AS (SELECT key_id, SUM(amount) AS amount, SUM(charged) AS charged FROM r GROUP BY key_id),
       k AS (
         UPDATE api_keys a SET
           credits = a.credits + agg.amount - agg.charged,
           reserved = a.reserved - agg.amount,
           period_spent = CASE WHEN a.period_start < $4 THEN 0 ELSE a.period_spent END + agg.charged,
           period_start = GREATEST(a.period_start, $4)
         FROM agg WHERE a.id = agg.key_id
         RETURNING a.id, a.credits + a.reserved AS bal),
       ins AS (
         INSERT INTO ledger (key_id, request_id, kind, amount, balance_after, target)
         SELECT r.key_id, r.request_id, 'charge', -r.charged,
                k.bal + COALESCE(SUM(r.charged) OVER (PARTITION BY r.key_id ORDER BY r.n DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0),
                r.target
         FROM r JOIN k ON k.id = r.key_id WHERE r.charged > 0)
       SELECT request_id, charged FROM r`,
      [batch.map((b) => b[0]), batch.map((b) => b[1]), batch.map((b) => b[2]), periodStartOf()],
      { prepared: true },
    );
    const charged = new Map(rows.map((r) => [r.request_id as string, Number(r.charged)]));
    return batch.map((b) => charged.get(b[0]) ?? 0);
  }

  async release(requestId: string): Promise<void> {
    await this.db.query(
      `WITH r AS (DELETE FROM reservations WHERE request_id = $1 RETURNING key_id, amount)
       UPDATE api_keys a SET credits = a.credits + r.amount, reserved = a.reserved - r.amount FROM r WHERE a.id = r.key_id`,
      [requestId],
    );
  }

  async adjust(keyId: string, delta: number, reason: string): Promise<number> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query(
        'UPDATE api_keys SET credits = credits + $2, updated_at = now() WHERE id = $1 AND credits + $2 >= 0 RETURNING credits + reserved AS bal',
        [keyId, delta],
      );
      if (!rows[0]) {
        const exists = await tx.query('SELECT 1 FROM api_keys WHERE id = $1', [keyId]);
        if (!exists[0]) throw new NotFoundError(`Key not found: ${keyId}`);
        throw new InputError('Deduction larger than the spendable balance.');
      }
      const bal = Number(rows[0].bal);
      await tx.query('INSERT INTO ledger (key_id, kind, amount, balance_after, reason) VALUES ($1,$2,$3,$4,$5)', [keyId, delta >= 0 ? 'topup' : 'deduct', delta, bal, reason]);
      return bal;
    });
  }

  async balance(key: KeyRecord): Promise<Balance> {
    const [r] = await this.db.query('SELECT credits, reserved, budget, period_start, period_spent FROM api_keys WHERE id = $1', [key.id]);
    if (!r) throw new NotFoundError(`Key not found: ${key.id}`);
    const current = periodStartOf();
    const rolled = new Date(r.period_start) < current;
    const periodStart = rolled ? current : new Date(r.period_start);
    return {
      credits: Number(r.credits),
      reserved: Number(r.reserved),
      budget: r.budget === null ? null : Number(r.budget),
      spent: rolled ? 0 : Number(r.period_spent),
      periodStart,
      periodEnd: periodEndOf(periodStart),
    };
  }

  entries(keyId: string, page: number, limit: number): Promise<LedgerEntry[]> {
    return readEntries(this.db, keyId, page, limit);
  }

  invalidate(): void {}

  /** Releases reservations left behind by an instance that died mid-request. */
  async reapStale(): Promise<void> {
    await this.db.query(
      `WITH r AS (DELETE FROM reservations WHERE created_at < now() - ($1::int * interval '1 millisecond') RETURNING key_id, amount),
       s AS (SELECT key_id, sum(amount) AS amount FROM r GROUP BY key_id)
       UPDATE api_keys a SET credits = a.credits + s.amount, reserved = a.reserved - s.amount FROM s WHERE a.id = s.key_id`,
      [STALE_RESERVATION_MS],
    );
  }

  async close(): Promise<void> {
    clearInterval(this.reaper);
    await this.reserver.drain();
    await this.settler.drain();
  }
}
