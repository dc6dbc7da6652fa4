/**
 * Change monitors (issue 27 "Monitors"): a key asks the service to scrape a page on an interval
 * with change tracking and to call a webhook when it changes.
 */

/** Where a monitor reports a change, and what it echoes back. */
export interface MonitorWebhook {
  url: string;
  metadata?: unknown;
}

/** What the last run found. */
export interface MonitorLastRun {
  at: string;
  /** `new`, `same`, `changed` or `removed` from change tracking; absent when the run failed. */
  changeStatus?: string;
  /** The failure of a run that did not scrape (the page, the key's credits, the service). */
  error?: { code: string; message: string };
}

/** A monitor as stored and shown to its key. */
export interface Monitor {
  id: string;
  keyId: string;
  url: string;
  /** The scrape options every run uses (any `scrape_page` option but `url`). */
  options: Record<string, unknown>;
  intervalMs: number;
  webhook: MonitorWebhook | null;
  status: 'active' | 'paused';
  nextRunAt: Date;
  lastRun: MonitorLastRun | null;
  runs: number;
  changes: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a key may change on its monitor. */
export interface MonitorPatch {
  options?: Record<string, unknown>;
  intervalMs?: number;
  webhook?: MonitorWebhook | null;
  status?: 'active' | 'paused';
}

/** One due run claimed by an instance: the monitor and the tick (its scheduled time, ms). */
export interface ClaimedRun {
  id: string;
  tick: number;
}

/** A change, handed to the webhook dispatcher (which signs, records and retries it). */
export interface MonitorChangeEvent {
  keyId: string;
  /** The monitor's id: deliveries are recorded under it. */
  jobId: string;
  webhook: MonitorWebhook;
  type: 'monitor.changed';
  data: unknown;
}

/** Where change events go; the webhook dispatcher in a running service. */
export interface MonitorWebhookSink {
  deliver(event: MonitorChangeEvent): Promise<void>;
}
