/**
 * Batched reservations on PostgreSQL (issue 18 "Performance"): calls reserved in one batch are
 * decided exactly as one at a time would be, in some order: never more than the balance, and
 * nothing refused that fits.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { postgresBackend } from './helpers/storage.js';
import { openPostgres } from '../core/storage/postgres.js';
import { migrate } from '../core/storage/migrations.js';
import { SqlLedger } from '../core/credits/sql-ledger.js';
import type { KeyRecord } from '../core/keys/types.js';

async function withLedger(fn: (ledger: SqlLedger, key: (credits: number, budget?: number) => Promise<KeyRecord>) => Promise<void>): Promise<void> {
  const backend = await postgresBackend();
  const db = await openPostgres(backend.env.DATABASE_URL!);
  const ledger = new SqlLedger(db);
  try {
    await migrate(db);
    let n = 0;
    await fn(ledger, async (credits, budget) => {
      const id = `key_batch_${n++}`;
      await db.query(
        'INSERT INTO api_keys (id, name, key_hash, key_prefix, credits, budget, period_start, rate_limit) VALUES ($1, $1, $1, $1, $2, $3, now(), 600)',
        [id, credits, budget ?? null],
      );
      return { id } as KeyRecord;
    });
  } finally {
    await ledger.close();
    await db.close();
    await backend.dispose();
  }
}

const outcome = (p: Promise<void>) => p.then(() => 'ok', (e: { code?: string }) => e.code ?? String(e));

describe('batched reservations on PostgreSQL', () => {
  it('a later, smaller call of the same batch still gets what is left (90 + 10 of 100; 20 refused)', () =>
    withLedger(async (ledger, key) => {
      const k = await key(100);
      const results = await Promise.all([outcome(ledger.reserve(k, 'r1', 90)), outcome(ledger.reserve(k, 'r2', 20)), outcome(ledger.reserve(k, 'r3', 10))]);
      assert.deepEqual(results, ['ok', 'INSUFFICIENT_CREDITS', 'ok']);
      const b = await ledger.balance(k);
      assert.deepEqual([b.credits, b.reserved], [0, 100]);
    }));

  it('many keys in one batch, each exact: 300 calls of 10 over 30 keys of 55 credits → 5 each', () =>
    withLedger(async (ledger, key) => {
      const keys = await Promise.all(Array.from({ length: 30 }, () => key(55)));
      const results = await Promise.all(keys.flatMap((k, i) => Array.from({ length: 10 }, (_, j) => outcome(ledger.reserve(k, `m${i}_${j}`, 10)))));
      assert.equal(results.filter((r) => r === 'ok').length, 150);
      for (const k of keys) {
        const b = await ledger.balance(k);
        assert.deepEqual([b.credits, b.reserved], [5, 50]);
      }
      // Settling charges what each used and frees the rest, batch or not.
      const charged = await Promise.all(keys.flatMap((_, i) => Array.from({ length: 5 }, (_, j) => ledger.settle(`m${i}_${j}`, 7, 'test_echo'))));
      assert.equal(charged.reduce((a, b) => a + b, 0), 150 * 7);
      assert.deepEqual([(await ledger.balance(keys[0]!)).credits, (await ledger.balance(keys[0]!)).reserved], [55 - 35, 0]);
    }));

  it('the budget holds inside a batch too', () =>
    withLedger(async (ledger, key) => {
      const k = await key(1000, 25);
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => outcome(ledger.reserve(k, `b${i}`, 10))));
      assert.deepEqual(results.sort(), ['BUDGET_EXCEEDED', 'BUDGET_EXCEEDED', 'BUDGET_EXCEEDED', 'ok', 'ok']);
    }));
});
