/**
 * Ledger request ids of a job's items: one per attempt at an item, so a resumed item can look up
 * what its earlier attempts were charged and is never charged twice.
 */
import type { ClaimedItem } from './types.js';

/** The ledger request id of one attempt at one item. */
export function requestIdOf(jobId: string, item: ClaimedItem): string {
  return `${jobId}/${item.id}/${item.attempts}`;
}

/** Request ids of the item's earlier attempts. */
export function earlierAttempts(jobId: string, item: ClaimedItem): string[] {
  return Array.from({ length: item.attempts - 1 }, (_, i) => `${jobId}/${item.id}/${i + 1}`);
}
