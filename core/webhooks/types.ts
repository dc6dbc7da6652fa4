/**
 * The contract between the job engine and the webhook dispatcher (issue 25 "Webhooks"). The job
 * engine defines the same shapes in core/jobs/webhooks.ts; until the two are merged they are
 * copied here, field for field.
 */

/** The `webhook` a job was submitted with. */
export interface JobWebhookConfig {
  url: string;
  events?: string[];
  metadata?: unknown;
}

/** Every event a job can emit, in the order a job emits them. */
export const JOB_EVENT_TYPES = ['job.started', 'job.page', 'job.completed', 'job.failed', 'job.cancelled'] as const;

/** One event type. */
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];

/** One event of one job, handed to the dispatcher. */
export interface JobEventDelivery {
  keyId: string;
  jobId: string;
  webhook: JobWebhookConfig;
  type: JobEventType;
  /** The job status view; for `job.page` the item result. */
  data: unknown;
}

/** Hands one job event to the webhook dispatcher, which records and delivers it durably. */
export interface JobWebhookSink {
  deliver(event: JobEventDelivery): Promise<void>;
}
