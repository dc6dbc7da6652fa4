/**
 * A single statement PostgreSQL aborts to break a deadlock is run again (postgres.ts): a job
 * cancel racing the instance that finishes the job was answered 500 "deadlock detected".
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPostgres } from './postgres.js';
import { PG_ADMIN_URL } from '../../test/helpers/storage.js';

it('a statement chosen as a deadlock victim is run again and succeeds once the other side commits', async () => {
  const table = `deadlock_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  const other = new pg.Client({ connectionString: PG_ADMIN_URL });
  await other.connect();
  const db = await openPostgres(PG_ADMIN_URL, { max: 2 });
  try {
    await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY, n int NOT NULL)`);
    await admin.query(`INSERT INTO ${table} VALUES (1, 0), (2, 0)`);
    // The other side holds row 2; the statement takes row 1 and then waits for row 2.
    await other.query('BEGIN');
    await other.query(`UPDATE ${table} SET n = n + 10 WHERE id = 2`);
    // One statement over both rows: a sequential scan of this two-row table meets row 1 first.
    const statement = db.query(`UPDATE ${table} SET n = n + 1 WHERE id IN (1, 2)`);
    const settled = statement.then(() => 'ok', (err: { code?: string }) => err.code ?? String(err));
    await new Promise((r) => setTimeout(r, 200));
    // Now the other side waits for row 1: a cycle. The statement waited first, so its deadlock
    // check (after deadlock_timeout, 1 s by default) runs first and PostgreSQL aborts it.
    const otherWaits = other.query(`UPDATE ${table} SET n = n + 10 WHERE id = 1`);
    await otherWaits;
    await other.query('COMMIT');
    assert.equal(await settled, 'ok');
    const rows = (await admin.query(`SELECT id, n FROM ${table} ORDER BY id`)).rows;
    // Each side's updates applied once: the aborted attempt left nothing behind.
    assert.deepEqual(rows, [{ id: 1, n: 11 }, { id: 2, n: 11 }]);
  } finally {
    await admin.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await Promise.all([admin.end(), other.end(), db.close()]);
  }
});
