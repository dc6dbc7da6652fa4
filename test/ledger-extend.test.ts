/**
 * Growing a reservation (`Ledger.extend`, used by `ctx.reserveFor`) on both ledgers: the embedded
 * store's in-memory one and PostgreSQL's. The key's spendable and held credits move together, a
 * hold the key cannot cover is refused and left as it was, the charge may use the grown hold, and
 * a hold already released cannot grow.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPglite } from '../core/storage/pglite.js';
import { openPostgres } from '../core/storage/postgres.js';
import { migrate } from '../core/storage/migrations.js';
import { KeyStore } from '../core/keys/key-store.js';
import { MemoryLedger } from '../core/credits/memory-ledger.js';
import { SqlLedger } from '../core/credits/sql-ledger.js';
import { InsufficientCreditsError } from '../core/errors.js';
import type { Db } from '../core/storage/db.js';
import type { Ledger } from '../core/credits/ledger.js';
import { postgresBackend, type Backend } from './helpers/storage.js';

const LEDGERS: { name: string; open: () => Promise<{ db: Db; ledger: Ledger; dispose: () => Promise<void> }> }[] = [
  {
    name: 'embedded (memory ledger)',
    open: async () => {
      const db = await openPglite('memory://');
      return { db, ledger: new MemoryLedger(db), dispose: async () => undefined };
    },
  },
  {
    name: 'postgres (sql ledger)',
    open: async () => {
      const backend: Backend = await postgresBackend();
      const db = await openPostgres(backend.env.DATABASE_URL!);
      return { db, ledger: new SqlLedger(db), dispose: () => backend.dispose() };
    },
  },
];

for (const { name, open } of LEDGERS) {
  describe(`ledger extend: ${name}`, () => {
    let db: Db;
    let ledger: Ledger;
    let dispose: () => Promise<void>;
    let keys: KeyStore;

    before(async () => {
      ({ db, ledger, dispose } = await open());
      await migrate(db);
      keys = new KeyStore(db, 0);
    });
    after(async () => {
      await ledger.close();
      await db.close();
      await dispose();
    });

    const money = async (key: Awaited<ReturnType<KeyStore['create']>>['record']) => {
      const b = await ledger.balance(key);
      return { credits: b.credits, reserved: b.reserved };
    };

    it('grows a hold, refuses what the key cannot cover, and charges within the grown hold', async () => {
      const { record: key } = await keys.create({ name: 'grow', credits: 500, rateLimitPerMinute: 60 });
      await ledger.reserve(key, 'req-1', 110);
      await ledger.extend(key, 'req-1', 150);
      assert.deepEqual(await money(key), { credits: 240, reserved: 260 });
      await assert.rejects(ledger.extend(key, 'req-1', 241), (err: unknown) => err instanceof InsufficientCreditsError && err.code === 'INSUFFICIENT_CREDITS');
      assert.deepEqual(await money(key), { credits: 240, reserved: 260 }, 'a refused extension leaves the hold as it was');
      assert.equal(await ledger.settle('req-1', 230, 'extract_audio'), 230);
      assert.deepEqual(await money(key), { credits: 270, reserved: 0 });
    });

    it('a released or settled hold cannot grow', async () => {
      const { record: key } = await keys.create({ name: 'gone', credits: 300, rateLimitPerMinute: 60 });
      await ledger.reserve(key, 'req-2', 100);
      await ledger.release('req-2');
      await ledger.extend(key, 'req-2', 50);
      assert.deepEqual(await money(key), { credits: 300, reserved: 0 });
      await ledger.reserve(key, 'req-3', 100);
      await ledger.settle('req-3', 100, 'extract_audio');
      await ledger.extend(key, 'req-3', 50);
      assert.deepEqual(await money(key), { credits: 200, reserved: 0 });
    });

    it('a budget caps growth like a reservation', async () => {
      const { record: key } = await keys.create({ name: 'budget', credits: 1000, rateLimitPerMinute: 60, budget: 200 });
      await ledger.reserve(key, 'req-4', 110);
      await assert.rejects(ledger.extend(key, 'req-4', 100), (err: unknown) => err instanceof InsufficientCreditsError && err.code === 'BUDGET_EXCEEDED');
      await ledger.extend(key, 'req-4', 90);
      assert.deepEqual(await money(key), { credits: 800, reserved: 200 });
      await ledger.release('req-4');
    });
  });
}
