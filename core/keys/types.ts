/** API key records as stored. */
import type { Policy } from '../policy/types.js';

/** A key as the service sees it; the plaintext key is never stored. */
export interface KeyRecord {
  id: string;
  name: string;
  /** First characters of the plaintext key, to recognise it in listings. */
  prefix: string;
  /** Spendable credits (not counting reservations of requests in flight). */
  credits: number;
  /** Optional spending cap per calendar month (UTC). */
  budget: number | null;
  periodStart: Date;
  periodSpent: number;
  /** Requests per minute. */
  rateLimit: number;
  active: boolean;
  policy: Policy;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields an admin may change. */
export interface KeyUpdate {
  name?: string;
  active?: boolean;
  rateLimitPerMinute?: number;
  budget?: number | null;
  policy?: Policy;
}
