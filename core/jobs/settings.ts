/** Settings of the job engine (README "Configuration" and "Jobs"), read once at boot. */
import { intSetting } from '../util/int-setting.js';

type Env = Record<string, string | undefined>;

/** How jobs run on this instance and how long their results stay. */
export interface JobSettings {
  /** How long a finished job's rows (and files) are kept (ms). */
  retentionMs: number;
  /** Jobs one key may have running at once, across instances; more wait queued. */
  maxRunningPerKey: number;
  /** Items one job runs at once. */
  itemConcurrency: number;
  /** Job turns this instance works on at once (pg-boss workers). */
  workers: number;
  /**
   * Seconds an instance's claim on a job or item lasts without being renewed: a killed instance's
   * job is taken over by another after about this long (plus the maintenance interval).
   */
  leaseSeconds: number;
  /** How often pg-boss looks for expired claims (s). */
  maintenanceSeconds: number;
  /** Largest input (bytes of JSON) kept in the job's row; a larger one goes to the file store. */
  inputInlineBytes: number;
  /**
   * How often one worker polls the queue (s); the others poll `workers` times less often and are
   * woken in turn when a poll finds work (service.ts). This instance wakes its workers itself for every
   * turn it queues (wakeups.ts), so polling finds only turns another instance queued and the
   * ones pg-boss offers again: every second on PostgreSQL, where other instances share the
   * queue, rarely on the embedded store, where no other instance can.
   */
  pollSeconds: number;
}

/** Poll interval when JOB_POLL_SECONDS is unset: PostgreSQL (instances share the queue), embedded store. */
const POLL_SECONDS = { postgres: 1, embedded: 10 };

/** Documented job settings: name → description and default (README configuration table). */
export const JOB_SETTINGS_DOC: Record<string, { description: string; default: string }> = {
  JOB_RETENTION_MS: { description: 'How long a finished job (its status, results and produced files) is kept before it is purged.', default: '86400000' },
  JOB_MAX_RUNNING_PER_KEY: { description: 'Jobs one API key may have running at once (across instances); more wait in `queued`.', default: '2' },
  JOB_ITEM_CONCURRENCY: { description: 'Items (pages, URLs) one job works on at once.', default: '4' },
  JOB_WORKERS: { description: 'Job turns one instance works on at once; each turn runs up to JOB_ITEM_CONCURRENCY items of one job, then the job queues again behind other keys\' jobs.', default: '4' },
  JOB_LEASE_SECONDS: { description: 'How long an instance\'s claim on a running job lasts without renewal: a killed instance\'s jobs resume elsewhere after about this long plus JOB_MAINTENANCE_SECONDS.', default: '30' },
  JOB_MAINTENANCE_SECONDS: { description: 'How often the queue looks for claims that expired (killed instances).', default: '10' },
  JOB_POLL_SECONDS: { description: 'How often one of an instance\'s job workers looks at the queue on its own; the others look JOB_WORKERS times less often, and a worker that takes a turn wakes the next, so all join when a look finds work. An instance wakes its workers itself for every turn it queues (at once, or when a delayed turn is due), so the poll only finds turns queued by another instance and claims that expired: once a second on PostgreSQL, where instances share the queue; every 10 s on the embedded store (one instance), where polling was most of an idle service\'s CPU.', default: '1 (PostgreSQL), 10 (embedded)' },
  JOB_INPUT_INLINE_BYTES: { description: 'Largest job input (bytes of JSON) kept in the job\'s database row; a larger one (an inline file) is kept in the file store as a `.json` file owned by the job, the row holding a reference: it lives exactly as long as the job (FILES_MAX_RETENTION_MS does not apply to it) and is deleted with it.', default: '1048576' },
};

/** Reads the job settings for a store of `storeKind`; a bad value stops boot naming the variable. */
export function loadJobSettings(env: Env, storeKind: 'postgres' | 'embedded' = 'postgres'): JobSettings {
  return {
    retentionMs: intSetting(env, 'JOB_RETENTION_MS', 24 * 3600 * 1000),
    maxRunningPerKey: intSetting(env, 'JOB_MAX_RUNNING_PER_KEY', 2),
    itemConcurrency: intSetting(env, 'JOB_ITEM_CONCURRENCY', 4),
    workers: intSetting(env, 'JOB_WORKERS', 4),
    leaseSeconds: intSetting(env, 'JOB_LEASE_SECONDS', 30, 2),
    maintenanceSeconds: intSetting(env, 'JOB_MAINTENANCE_SECONDS', 10),
    inputInlineBytes: intSetting(env, 'JOB_INPUT_INLINE_BYTES', 1024 * 1024),
    pollSeconds: intSetting(env, 'JOB_POLL_SECONDS', POLL_SECONDS[storeKind]),
  };
}
