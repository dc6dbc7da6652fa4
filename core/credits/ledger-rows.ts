/** Shared SQL reads of the ledger, used by both ledger implementations. */
import type { Queryable, Row } from '../storage/db.js';
import type { LedgerEntry } from './ledger.js';

/** Maps a ledger row. */
export function rowToEntry(r: Row): LedgerEntry {
  return {
    id: Number(r.id),
    requestId: r.request_id ?? null,
    kind: r.kind,
    amount: Number(r.amount),
    balanceAfter: Number(r.balance_after),
    reason: r.reason ?? null,
    target: r.target ?? null,
    createdAt: new Date(r.created_at),
  };
}

/** A key's ledger entries, newest first. */
export async function readEntries(db: Queryable, keyId: string, page: number, limit: number): Promise<LedgerEntry[]> {
  const rows = await db.query('SELECT * FROM ledger WHERE key_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3', [keyId, limit, (page - 1) * limit]);
  return rows.map(rowToEntry);
}
