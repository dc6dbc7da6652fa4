/**
 * Settings of webhook delivery (issue 25), read from the environment at boot. The retry defaults
 * spread eight retries over about an hour: pg-boss waits `delay × 2^n × (1..2)` seconds before
 * retry n, so 10 s × (1 + 2 + … + 128) × 1.5 on average is about 64 minutes.
 */
import { intSetting } from '../util/int-setting.js';

/** The resolved settings. */
export interface WebhookSettings {
  /** Longest one attempt may take (connect, send, answer), in ms. */
  timeoutMs: number;
  /** Retries after the first attempt. */
  retryLimit: number;
  /** Base delay of the exponential backoff, in seconds (pg-boss counts whole seconds). */
  retryDelaySeconds: number;
  /** Attempts one instance makes at once. */
  concurrency: number;
  /** How often an idle instance looks for due retries, in ms (pg-boss's floor is 500). */
  pollMs: number;
}

/** Documented variables: name → description and default (README "Webhook settings"). */
export const WEBHOOK_SETTINGS_DOC: Record<string, { description: string; default: string }> = {
  WEBHOOK_TIMEOUT_MS: { description: 'Longest one webhook attempt may take (connect, send, answer); past it the attempt counts as failed and is retried.', default: '10000' },
  WEBHOOK_RETRY_LIMIT: { description: 'Retries after a failed first attempt.', default: '8' },
  WEBHOOK_RETRY_DELAY_S: { description: 'Base delay of the exponential backoff between attempts, in seconds: retry n waits between delay × 2^n and twice that.', default: '10' },
  WEBHOOK_CONCURRENCY: { description: 'Webhook attempts one instance makes at once.', default: '8' },
  WEBHOOK_POLL_MS: { description: 'How often an instance looks at the queue of webhook attempts on its own (at least 500). An instance wakes its worker itself for every event it queues and for each retry it schedules (when the retry is due at the latest), so the poll only finds what another instance left (a retry whose instance stopped, an expired attempt): every 2 s on PostgreSQL, where instances share the queue; every 30 s on the embedded store (one instance), where polling was most of an idle service\'s CPU.', default: '2000 (PostgreSQL), 30000 (embedded)' },
};

/** Poll interval when WEBHOOK_POLL_MS is unset: PostgreSQL (instances share the queue), embedded store. */
const POLL_MS = { postgres: 2000, embedded: 30_000 };

/** Reads the settings for a store of `storeKind`; throws with the variable's name on a bad value. */
export function loadWebhookSettings(env: Record<string, string | undefined>, storeKind: 'postgres' | 'embedded' = 'postgres'): WebhookSettings {
  return {
    timeoutMs: intSetting(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100),
    retryLimit: intSetting(env, 'WEBHOOK_RETRY_LIMIT', 8, 0),
    retryDelaySeconds: intSetting(env, 'WEBHOOK_RETRY_DELAY_S', 10, 1),
    concurrency: intSetting(env, 'WEBHOOK_CONCURRENCY', 8, 1),
    pollMs: intSetting(env, 'WEBHOOK_POLL_MS', POLL_MS[storeKind], 500),
  };
}
