/**
 * A ledger for plugin tests: every reservation succeeds and every charge is remembered, so a test
 * can assert what a call would cost without a database. Not for the service itself.
 */
import type { Balance, Ledger, LedgerEntry } from '../credits/ledger.js';

/** Remembers what each request reserved and was charged. */
export class RecordingLedger implements Ledger {
  readonly reserved = new Map<string, number>();
  readonly charged = new Map<string, number>();
  readonly released = new Set<string>();

  async reserve(_key: unknown, requestId: string, amount: number): Promise<void> {
    this.reserved.set(requestId, amount);
  }
  async extend(_key: unknown, requestId: string, amount: number): Promise<void> {
    if (this.reserved.has(requestId) && !this.charged.has(requestId) && !this.released.has(requestId)) this.reserved.set(requestId, this.reserved.get(requestId)! + amount);
  }
  async settle(requestId: string, actual: number): Promise<number> {
    if (this.charged.has(requestId) || this.released.has(requestId)) return 0;
    this.charged.set(requestId, actual);
    return actual;
  }
  async release(requestId: string): Promise<void> {
    if (!this.charged.has(requestId)) this.released.add(requestId);
  }
  async adjust(): Promise<number> {
    return 0;
  }
  async balance(): Promise<Balance> {
    const now = new Date();
    return { credits: Number.MAX_SAFE_INTEGER, reserved: 0, budget: null, spent: 0, periodStart: now, periodEnd: now };
  }
  async entries(): Promise<LedgerEntry[]> {
    return [];
  }
  invalidate(): void {}
  async close(): Promise<void> {}
}
