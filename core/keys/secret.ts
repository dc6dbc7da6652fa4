/** Making and hashing API keys: random, shown once, stored as a SHA-256 hash. */
import { createHash, randomBytes } from 'node:crypto';

/** Prefix of every key, so leaked keys are easy to recognise in scanners and logs. */
export const KEY_PREFIX = 'cia_';

/** A new random key (192 bits of entropy) and its public id. */
export function newKey(): { id: string; key: string } {
  return { id: `key_${randomBytes(9).toString('base64url')}`, key: KEY_PREFIX + randomBytes(24).toString('base64url') };
}

/** The stored form of a key; SHA-256 is enough since keys are high-entropy random strings. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Start of the calendar month (UTC) containing `now`: the budget period. */
export function periodStartOf(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
