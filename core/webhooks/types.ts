/**
 * The contract between the event sources (the job engine, change monitors) and the webhook
 * dispatcher (issue 25 "Webhooks"): defined once by the job engine (core/jobs/webhooks.ts).
 */
export type { JobEventDelivery, JobWebhookConfig, JobWebhookSink } from '../jobs/webhooks.js';
