/**
 * Ledger for the embedded store. PGlite belongs to one process, so that process can keep every
 * key's money in memory as the authority: reservations are exact without a round trip, and the
 * only durable write is the ledger row of each movement, inserted through group commit (one
 * statement per batch). A charge is acknowledged only after its batch commits. The ledger is
 * the record of money: a key's balance is the sum of its rows (grant, top-ups, deductions,
 * charges), read once when the key is first used. Reservations are never written, so after a
 * crash the unfinished requests are simply released.
 */
import type { Db } from '../storage/db.js';
import type { KeyRecord } from '../keys/types.js';
import type { Balance, Ledger, LedgerEntry } from './ledger.js';
import { periodEndOf } from './ledger.js';
import { readEntries } from './ledger-rows.js';
import { GroupCommitter } from '../storage/group-commit.js';
import { bulkInsert, type Column } from '../storage/bulk-insert.js';
import { periodStartOf } from '../keys/secret.js';
import { InputError, InsufficientCreditsError, NotFoundError } from '../errors.js';

const LEDGER_COLUMNS: Column[] = [
  { name: 'key_id', type: 'text' },
  { name: 'request_id', type: 'text' },
  { name: 'kind', type: 'text' },
  { name: 'amount', type: 'bigint' },
  { name: 'balance_after', type: 'bigint' },
  { name: 'reason', type: 'text' },
  { name: 'target', type: 'text' },
];

/** A ledger row waiting for its batch, in LEDGER_COLUMNS order. */
type PendingRow = [string, string | null, string, number, number, string | null, string | null];

interface Account {
  /** Spendable now (reservations taken out). */
  credits: number;
  reserved: number;
  periodStart: Date;
  spent: number;
}

/** In-memory authoritative ledger with group-committed durability. */
export class MemoryLedger implements Ledger {
  private readonly accounts = new Map<string, Account>();
  private readonly loading = new Map<string, Promise<Account>>();
  private readonly reservations = new Map<string, { keyId: string; amount: number }>();
  private readonly committer: GroupCommitter<PendingRow>;

  constructor(private readonly db: Db) {
    // Batches only insert rows, so several may be on their way to the database thread at once.
    this.committer = new GroupCommitter(db, (q, rows) => bulkInsert(q, 'ledger', LEDGER_COLUMNS, rows), 4, 'ledger');
  }

  private async account(keyId: string): Promise<Account> {
    const have = this.accounts.get(keyId);
    if (have) return have;
    let p = this.loading.get(keyId);
    if (!p) {
      p = (async () => {
        await this.committer.drain();
        const period = periodStartOf();
        const [r] = await this.db.query(
          `SELECT k.id,
                  (SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE key_id = k.id) AS credits,
                  (SELECT COALESCE(-SUM(amount), 0) FROM ledger WHERE key_id = k.id AND kind = 'charge' AND created_at >= $2) AS spent
           FROM api_keys k WHERE k.id = $1`,
          [keyId, period],
        );
        if (!r) throw new NotFoundError(`Key not found: ${keyId}`);
        const acc: Account = { credits: Number(r.credits), reserved: 0, periodStart: period, spent: Number(r.spent) };
        this.accounts.set(keyId, acc);
        return acc;
      })().finally(() => this.loading.delete(keyId));
      this.loading.set(keyId, p);
    }
    return p;
  }

  private static roll(acc: Account): void {
    const current = periodStartOf();
    if (acc.periodStart < current) {
      acc.periodStart = current;
      acc.spent = 0;
    }
  }

  async reserve(key: KeyRecord, requestId: string, amount: number): Promise<void> {
    if (amount === 0) return;
    const acc = this.accounts.get(key.id) ?? (await this.account(key.id));
    MemoryLedger.hold(key, acc, amount);
    this.reservations.set(requestId, { keyId: key.id, amount });
  }

  async extend(key: KeyRecord, requestId: string, amount: number): Promise<void> {
    const r = this.reservations.get(requestId);
    if (!r || amount <= 0) return;
    MemoryLedger.hold(key, this.accounts.get(r.keyId)!, amount);
    r.amount += amount;
  }

  /** Takes `amount` out of the spendable credits into the held ones, or throws; never awaits, so check and hold are one step. */
  private static hold(key: KeyRecord, acc: Account, amount: number): void {
    MemoryLedger.roll(acc);
    if (acc.credits < amount) throw new InsufficientCreditsError('INSUFFICIENT_CREDITS');
    if (key.budget !== null && acc.spent + acc.reserved + amount > key.budget) throw new InsufficientCreditsError('BUDGET_EXCEEDED');
    acc.credits -= amount;
    acc.reserved += amount;
  }

  async settle(requestId: string, actual: number, target: string): Promise<number> {
    const r = this.reservations.get(requestId);
    if (!r) return 0;
    this.reservations.delete(requestId);
    const acc = this.accounts.get(r.keyId)!;
    const charged = Math.min(Math.max(0, actual), r.amount);
    acc.reserved -= r.amount;
    acc.credits += r.amount - charged;
    if (charged === 0) return 0;
    MemoryLedger.roll(acc);
    acc.spent += charged;
    const balanceAfter = acc.credits + acc.reserved;
    try {
      await this.committer.submit([r.keyId, requestId, 'charge', -charged, balanceAfter, null, target]);
    } catch (err) {
      // Not durable, so not charged: give the credits back before the request fails.
      acc.credits += charged;
      acc.spent -= charged;
      throw err;
    }
    return charged;
  }

  async release(requestId: string): Promise<void> {
    const r = this.reservations.get(requestId);
    if (!r) return;
    this.reservations.delete(requestId);
    const acc = this.accounts.get(r.keyId)!;
    acc.reserved -= r.amount;
    acc.credits += r.amount;
  }

  async adjust(keyId: string, delta: number, reason: string): Promise<number> {
    const acc = await this.account(keyId);
    if (acc.credits + delta < 0) throw new InputError('Deduction larger than the spendable balance.');
    // A deduction is held at once (so nothing spends it meanwhile) and undone if the write
    // fails; a top-up becomes spendable only once it is durable.
    if (delta < 0) acc.credits += delta;
    const balanceAfter = acc.credits + acc.reserved + (delta > 0 ? delta : 0);
    try {
      await this.committer.submit([keyId, null, delta >= 0 ? 'topup' : 'deduct', delta, balanceAfter, reason, null]);
    } catch (err) {
      if (delta < 0) acc.credits -= delta;
      throw err;
    }
    if (delta > 0) acc.credits += delta;
    return balanceAfter;
  }

  async balance(key: KeyRecord): Promise<Balance> {
    const acc = await this.account(key.id);
    MemoryLedger.roll(acc);
    return { credits: acc.credits, reserved: acc.reserved, budget: key.budget, spent: acc.spent, periodStart: acc.periodStart, periodEnd: periodEndOf(acc.periodStart) };
  }

  async entries(keyId: string, page: number, limit: number): Promise<LedgerEntry[]> {
    await this.committer.drain();
    return readEntries(this.db, keyId, page, limit);
  }

  invalidate(): void {
    // Budgets are read from the key record on every reservation; money lives only here.
  }

  async close(): Promise<void> {
    await this.committer.drain();
  }
}
