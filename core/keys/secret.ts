/** Making and hashing API keys: random, shown once, stored as a SHA-256 hash. */
import { hash, randomBytes } from 'node:crypto';

/** Prefix of every key, so leaked keys are easy to recognise in scanners and logs. */
export const KEY_PREFIX = 'cia_';

/** A new random key (192 bits of entropy) and its public id. */
export function newKey(): { id: string; key: string } {
  return { id: `key_${randomBytes(9).toString('base64url')}`, key: KEY_PREFIX + randomBytes(24).toString('base64url') };
}

/**
 * The stored form of a key; SHA-256 is enough since keys are high-entropy random strings. Every
 * call hashes its key, so the one-shot `hash` (about 0.6 µs) rather than a Hash object (about 3.5).
 */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Start of the calendar month (UTC) containing `now`: the budget period. */
export function periodStartOf(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
