/**
 * The queue engine behind jobs: pg-boss (issue 25 "The engine"), in the service's own database.
 * On PostgreSQL it opens its own small pool; on the embedded store it runs through the PGlite
 * thread via `db.executeSql`, where statements without parameters (pg-boss's migrations and
 * queue set-up send several at once) must go through PGlite's `exec`.
 */
import PgBoss from 'pg-boss';
import type { Db } from '../storage/db.js';
import type { JobSettings } from './settings.js';

/** The schema pg-boss keeps its tables in (the test harness's database template installs it too). */
export const JOB_SCHEMA = 'pgboss';

/** The one queue of job turns. */
export const JOB_QUEUE = 'cia-job-turns';

/** Starts pg-boss on the service's store and makes sure the queue exists. */
export async function startBoss(db: Db, databaseUrl: string | undefined, settings: JobSettings, onError: (err: Error) => void): Promise<PgBoss> {
  const common = {
    schema: JOB_SCHEMA,
    // Expired claims (killed instances) are found by maintenance, so it runs often.
    maintenanceIntervalSeconds: settings.maintenanceSeconds,
    // No `monitorStateIntervalSeconds`: nothing here listens for pg-boss's queue-state counts, and
    // counting every state of the whole job table each 10 s was idle work (issue 27).
    // Job turns are short-lived queue entries; our own tables keep the job's record.
    retentionDays: 1,
    deleteAfterHours: 1,
    schedule: false,
  };
  const boss =
    db.kind === 'postgres' && databaseUrl
      ? new PgBoss({ ...common, connectionString: databaseUrl, max: 4 })
      : new PgBoss({ ...common, db: embeddedAdapter(db) });
  boss.on('error', onError);
  const install = async () => {
    await boss.start();
    await boss.createQueue(JOB_QUEUE, {
      name: JOB_QUEUE,
      // A turn whose instance died expires after the lease and is offered again.
      expireInSeconds: settings.leaseSeconds,
      retryLimit: 1_000_000,
      retryDelay: 0,
    });
  };
  await withQueueSetupLock(db, install);
  return boss;
}

/**
 * Runs `fn` (pg-boss's schema set-up, or creating a queue: pg-boss 10 makes a table per queue)
 * while no other instance does the same: instances starting together on a fresh database would
 * deadlock or collide there (seen with two processes). One at a time, as our own migrations run.
 */
export async function withQueueSetupLock(db: Db, fn: () => Promise<void>): Promise<void> {
  if (db.kind !== 'postgres') return fn();
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(727275)');
    await fn();
  });
}

/** pg-boss's `executeSql` on the embedded database. */
function embeddedAdapter(db: Db): PgBoss.Db {
  return {
    async executeSql(text: string, values?: unknown[]) {
      if ((!values || values.length === 0) && db.exec) return { rows: await db.exec(text) };
      return { rows: await db.query(text, values ?? []) };
    },
  };
}
