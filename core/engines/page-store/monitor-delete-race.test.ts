/**
 * On PostgreSQL, a monitor run's snapshot write that meets its monitor's DELETE in progress (not
 * yet committed) must wait for it and then keep nothing. Reading the monitor row without a lock,
 * the write would see it still there (the DELETE is not committed), insert, and leave a snapshot
 * of a deleted monitor once the DELETE, which removed the monitor's snapshots before that insert,
 * commits. The server test (test/monitors-delete-in-flight.test.ts) cannot hold a statement
 * open; here the DELETE is a transaction held open on another connection.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPostgres } from '../../storage/postgres.js';
import { migrate } from '../../storage/migrations.js';
import { MonitorStore } from '../../monitors/monitor-store.js';
import { monitorTag } from '../../monitors/monitor-tag.js';
import { postgresBackend } from '../../../test/helpers/storage.js';
import { until } from '../../../test/helpers/until.js';
import { createPageStore } from './index.js';

it('a snapshot write under a monitor being deleted waits for the DELETE and keeps nothing', async () => {
  const b = await postgresBackend();
  const db = await openPostgres(b.env.DATABASE_URL!, { max: 2 });
  const other = new pg.Client({ connectionString: b.env.DATABASE_URL });
  await other.connect();
  try {
    await migrate(db);
    await db.query(`INSERT INTO api_keys (id, name, key_hash, key_prefix, credits, period_start, rate_limit) VALUES ('key_race', 'race', 'hash_race', 'cia_race', 100, now(), 60)`);
    const monitor = await new MonitorStore(db).create({ keyId: 'key_race', url: 'https://example.com/', options: {}, intervalMs: 60_000, webhook: null });
    const tag = monitorTag(monitor.id);
    const pages = createPageStore({ db });

    // The DELETE of the monitor and its history, as MonitorStore.delete does it, not committed yet.
    await other.query('BEGIN');
    await other.query('DELETE FROM monitors WHERE id = $1', [monitor.id]);
    await other.query('DELETE FROM page_snapshots WHERE key_id = $1 AND tag = $2', ['key_race', tag]);
    const write = pages.snapshotPut('key_race', 'https://example.com/', tag, 'the page');
    const settled = write.then(() => true);
    // Either the write waits on the monitor row's lock (what it should do) or it has already
    // returned, having read the monitor as still there.
    const waitsOnLock = async () => Number((await other.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0].n) > 0;
    await until(async () => (await Promise.race([settled, new Promise<false>((r) => setImmediate(() => r(false)))])) || (await waitsOnLock()), 'the write to wait or return', 30_000);
    await other.query('COMMIT');

    assert.equal(await write, undefined, 'nothing written for a deleted monitor');
    const rows = await db.query('SELECT tag FROM page_snapshots WHERE key_id = $1', ['key_race']);
    assert.deepEqual(rows, [], 'no snapshot of a deleted monitor left');
    // Any other tag of the key is written as before.
    assert.ok(await pages.snapshotPut('key_race', 'https://example.com/', 'mine', 'the page'));
  } finally {
    await other.end().catch(() => undefined);
    await db.close();
    await b.dispose();
  }
});
