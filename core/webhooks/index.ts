/**
 * Webhook delivery for jobs (issue 25): what the composition root needs to wire it onto the job
 * engine's pg-boss instance.
 */
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { HttpEngine } from '../engines/http/types.js';
import { WebhookDispatcher } from './dispatcher.js';
import { loadWebhookSettings } from './settings.js';
import type { WebhookSecrets } from './secret-store.js';
import type { WebhookDeliveries } from './delivery-store.js';

export { WebhookDispatcher, WEBHOOK_QUEUE } from './dispatcher.js';
export { WebhookSecrets } from './secret-store.js';
export { WebhookDeliveries } from './delivery-store.js';
export { WEBHOOK_SETTINGS_DOC, loadWebhookSettings } from './settings.js';
export type { JobEventDelivery, JobWebhookConfig, JobWebhookSink } from './types.js';

/**
 * Makes the dispatcher on a started pg-boss (the job engine's), with settings from `env`, and
 * starts its worker; stop it before pg-boss stops.
 */
export async function startWebhookDispatcher(opts: {
  boss: PgBoss;
  http: HttpEngine;
  secrets: WebhookSecrets;
  deliveries: WebhookDeliveries;
  env: Record<string, string | undefined>;
  /** The store the queue lives in: its kind sets how often the worker polls (settings.ts). */
  storeKind?: 'postgres' | 'embedded';
  log: Pick<Logger, 'error' | 'warn'>;
}): Promise<WebhookDispatcher> {
  const dispatcher = new WebhookDispatcher({ ...opts, settings: loadWebhookSettings(opts.env, opts.storeKind) });
  await dispatcher.start();
  return dispatcher;
}
