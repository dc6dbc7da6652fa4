/**
 * The credit ledger contract (design: "Credits"): reserve the most a request can cost before it
 * runs, settle the actual cost on success, release on failure. Idempotent per request id, exact
 * under concurrency, and never negative.
 */
import type { KeyRecord } from '../keys/types.js';

/** A key's money as shown by `/api/v2/balance` and the admin API. */
export interface Balance {
  /** Credits spendable now (reservations of requests in flight are already taken out). */
  credits: number;
  /** Credits held by requests in flight. */
  reserved: number;
  budget: number | null;
  /** Credits charged since `periodStart`. */
  spent: number;
  periodStart: Date;
  periodEnd: Date;
}

/** One money movement. */
export interface LedgerEntry {
  id: number;
  requestId: string | null;
  kind: 'grant' | 'charge' | 'topup' | 'deduct';
  amount: number;
  balanceAfter: number;
  reason: string | null;
  target: string | null;
  createdAt: Date;
}

/** Money operations on API keys. */
export interface Ledger {
  /** Holds `amount` for `requestId`; throws `InsufficientCreditsError` when credits or budget fall short. */
  reserve(key: KeyRecord, requestId: string, amount: number): Promise<void>;
  /**
   * Adds `amount` to the hold of `requestId`'s reservation (see `CostRule.initial`); throws
   * `InsufficientCreditsError` like `reserve` and then holds what it held before. A no-op when the
   * reservation is gone (settled or released).
   */
  extend(key: KeyRecord, requestId: string, amount: number): Promise<void>;
  /** Charges `actual` (≤ the reservation) and frees the rest; a second call is a no-op returning 0. */
  settle(requestId: string, actual: number, target: string): Promise<number>;
  /** Frees a reservation without charging; a no-op when already settled or released. */
  release(requestId: string): Promise<void>;
  /** Adds (positive) or deducts (negative) credits with a reason; refuses to go below zero. */
  adjust(keyId: string, delta: number, reason: string): Promise<number>;
  balance(key: KeyRecord): Promise<Balance>;
  entries(keyId: string, page: number, limit: number): Promise<LedgerEntry[]>;
  /** Forgets cached state for a key after an admin change (budget, period). */
  invalidate(keyId: string): void;
  /** Writes anything pending and stops. */
  close(): Promise<void>;
}

/** End of the budget period that starts at `start` (one calendar month, UTC). */
export function periodEndOf(start: Date): Date {
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}
