/**
 * The seam between the job engine and webhook delivery (issue 25 "Webhooks"): the engine hands
 * each event of a job that asked for a webhook to a sink; the dispatcher behind it signs, records
 * and delivers it durably. The default sink drops events, so jobs run without a dispatcher wired.
 */

/** A job's webhook request, as submitted with `POST /api/v2/jobs`. */
export interface JobWebhookConfig { url: string; events?: string[]; metadata?: unknown }

/** One event of one job, for one key's webhook. */
export interface JobEventDelivery {
  keyId: string; jobId: string; webhook: JobWebhookConfig;
  type: 'job.started' | 'job.page' | 'job.completed' | 'job.failed' | 'job.cancelled';
  data: unknown;   // the job status view; for job.page the item result
}

/** Hands one job event to the webhook dispatcher, which records and delivers it durably. */
export interface JobWebhookSink { deliver(event: JobEventDelivery): Promise<void> }

/** The sink used until a dispatcher is registered: events go nowhere. */
export const noWebhooks: JobWebhookSink = { deliver: async () => {} };
