/**
 * Cancel straight on the store, for the admin CLI when no server is running (issue 25): the job
 * ends `cancelled` as `JobService.cancel` ends it (an instance still running it sees the cancel
 * at its next lease renewal), and its `job.cancelled` event is recorded and queued the same way,
 * so the next server to start delivers it.
 */
import type { Logger } from 'pino';
import type { Db } from '../storage/db.js';
import { createWebhookQueue, queueEvent } from '../webhooks/dispatcher.js';
import { WebhookDeliveries } from '../webhooks/delivery-store.js';
import { loadWebhookSettings } from '../webhooks/settings.js';
import { startBoss, withQueueSetupLock } from './boss.js';
import { loadJobSettings } from './settings.js';
import { JobStore } from './store.js';
import { jobView } from './view.js';

type Env = Record<string, string | undefined>;

/** Cancels job `id` on the store and queues its webhook event; false when it had ended already. */
export async function cancelOnStore(db: Db, databaseUrl: string | undefined, env: Env, id: string, log: Pick<Logger, 'error' | 'warn'>): Promise<boolean> {
  const store = new JobStore(db);
  if (!(await store.finish(id, 'cancelled'))) return false;
  const job = await store.get(id);
  if (!job?.webhook) return true;
  const boss = await startBoss(db, databaseUrl, loadJobSettings(env), (err) => log.error({ err }, 'job queue error'));
  try {
    const settings = loadWebhookSettings(env);
    await withQueueSetupLock(db, () => createWebhookQueue(boss, settings));
    await queueEvent({ boss, deliveries: new WebhookDeliveries(db), settings, log }, { keyId: job.keyId, jobId: job.id, webhook: job.webhook, type: 'job.cancelled', data: jobView(job) });
  } finally {
    await boss.stop({ graceful: false, wait: true, close: db.kind === 'postgres' });
  }
  return true;
}
