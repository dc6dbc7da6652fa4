/** Per-key request rate limit (design: "Rate limit per key"). */

/** The outcome of counting one request. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the current window after this one (0 when refused). */
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Counts requests per key in fixed one-minute windows, atomically. */
export interface RateLimiter {
  hit(keyId: string, limit: number): Promise<RateDecision>;
  /** Checks that a shared counter store answers (`/readyz`). */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

/** Length of one window. */
export const WINDOW_MS = 60_000;

/** Builds a decision from the window count. */
export function decide(count: number, limit: number, msLeft: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
  };
}
