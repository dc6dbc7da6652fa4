/**
 * Ledger for the embedded store. PGlite belongs to one process, so that process can keep every
 * key's money in memory as the authority: reservations are exact without a round trip, and the
 * durable writes (the key's balance and a ledger row per charge) go through group commit. A
 * charge is acknowledged only after its batch commits. Reservations are never written: after a
 * crash the stored balance is the one before the unfinished requests, i.e. they are released.
 */
import type { Db, Queryable } from '../storage/db.js';
import type { KeyRecord } from '../keys/types.js';
import type { Balance, Ledger, LedgerEntry } from './ledger.js';
import { periodEndOf } from './ledger.js';
import { readEntries } from './ledger-rows.js';
import { GroupCommitter } from '../storage/group-commit.js';
import { periodStartOf } from '../keys/secret.js';
import { InputError, InsufficientCreditsError, NotFoundError } from '../errors.js';

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
  private readonly dirty = new Set<string>();
  private readonly committer: GroupCommitter;

  constructor(private readonly db: Db) {
    this.committer = new GroupCommitter(db, { beforeCommit: (tx) => this.writeDirtyAccounts(tx) });
  }

  private async account(keyId: string): Promise<Account> {
    const have = this.accounts.get(keyId);
    if (have) return have;
    let p = this.loading.get(keyId);
    if (!p) {
      p = (async () => {
        const [r] = await this.db.query('SELECT credits, period_start, period_spent FROM api_keys WHERE id = $1', [keyId]);
        if (!r) throw new NotFoundError(`Key not found: ${keyId}`);
        const acc: Account = { credits: Number(r.credits), reserved: 0, periodStart: new Date(r.period_start), spent: Number(r.period_spent) };
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
    // From here to the end nothing awaits, so the check and the hold are one atomic step.
    MemoryLedger.roll(acc);
    if (acc.credits < amount) throw new InsufficientCreditsError('INSUFFICIENT_CREDITS');
    if (key.budget !== null && acc.spent + acc.reserved + amount > key.budget) throw new InsufficientCreditsError('BUDGET_EXCEEDED');
    acc.credits -= amount;
    acc.reserved += amount;
    this.reservations.set(requestId, { keyId: key.id, amount });
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
    this.dirty.add(r.keyId);
    await this.committer.submit((tx) =>
      tx.query("INSERT INTO ledger (key_id, request_id, kind, amount, balance_after, target) VALUES ($1,$2,'charge',$3,$4,$5)", [r.keyId, requestId, -charged, balanceAfter, target]).then(() => {}),
    );
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
    acc.credits += delta;
    const balanceAfter = acc.credits + acc.reserved;
    this.dirty.add(keyId);
    await this.committer.submit((tx) =>
      tx.query('INSERT INTO ledger (key_id, kind, amount, balance_after, reason) VALUES ($1,$2,$3,$4,$5)', [keyId, delta >= 0 ? 'topup' : 'deduct', delta, balanceAfter, reason]).then(() => {}),
    );
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

  /** One UPDATE per changed key per batch, with the balance as it stands (reservations count as unspent). */
  private async writeDirtyAccounts(tx: Queryable): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    for (const id of ids) {
      const acc = this.accounts.get(id)!;
      await tx.query('UPDATE api_keys SET credits = $2, period_start = $3, period_spent = $4 WHERE id = $1', [id, acc.credits + acc.reserved, acc.periodStart, acc.spent]);
    }
  }

  async close(): Promise<void> {
    await this.committer.drain();
  }
}
