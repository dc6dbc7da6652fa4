/** The job model (issue 25): a job's stored record and the view clients read. */
import type { JobWebhookConfig } from './webhooks.js';

/** Where a job is in its life; the last three are final. */
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** Every status, in life order (filters, metrics). */
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];

/** True for a status a job never leaves. */
export const isFinal = (s: string): boolean => s === 'completed' || s === 'failed' || s === 'cancelled';

/** One job as stored in the `jobs` table. */
export interface JobRecord {
  id: string;
  keyId: string;
  type: 'capability' | 'endpoint';
  target: string;
  /** The provider whose steps run the job (stepwise jobs), else the one asked for, if any. */
  provider: string | null;
  /** True when the job runs item by item through a provider's steps; false: one executor call. */
  stepwise: boolean;
  input: unknown;
  options: Record<string, unknown> | null;
  webhook: JobWebhookConfig | null;
  status: JobStatus;
  seeded: boolean;
  itemLimit: number | null;
  total: number | null;
  done: number;
  failed: number;
  creditsCharged: number;
  data: unknown;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** One claimed item of a stepwise job. */
export interface ClaimedItem {
  id: number;
  key: string;
  data: Record<string, unknown> | undefined;
  /** How many times the item has been claimed, this claim included (a resumed item: more than 1). */
  attempts: number;
}

/** A page of a job's results, oldest finished first. */
export interface ResultPage {
  items: unknown[];
  /** Cursor of the next page, or null when no more results exist yet. */
  next: string | null;
}
