/**
 * The seam between the job engine and webhook delivery (issue 25 "Webhooks"): the engine hands
 * each event of a job that asked for a webhook to a sink; the dispatcher behind it signs, records
 * and delivers it durably. The default sink drops events, so jobs run without a dispatcher wired.
 */

/** A job's webhook request, as submitted with `POST /api/v2/jobs`. */
export interface JobWebhookConfig { url: string; events?: string[]; metadata?: unknown }

/**
 * One event for one key's webhook: a job's (`job.*`, `jobId` its job) or a change monitor's
 * (`monitor.changed`, `jobId` the monitor's id, under which its deliveries are recorded).
 */
export interface JobEventDelivery {
  keyId: string;
  jobId: string;
  webhook: JobWebhookConfig;
  type: 'job.started' | 'job.page' | 'job.completed' | 'job.failed' | 'job.cancelled' | 'monitor.changed';
  /** The job status view; for `job.page` the item result; for `monitor.changed` the change. */
  data: unknown;
}

/** Hands one job event to the webhook dispatcher, which records and delivers it durably. */
export interface JobWebhookSink { deliver(event: JobEventDelivery): Promise<void> }

/** The sink used until a dispatcher is registered: events go nowhere. */
export const noWebhooks: JobWebhookSink = { deliver: async () => {} };
