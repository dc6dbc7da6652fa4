/**
 * The webhook dispatcher (issue 25): records each job event, enqueues one pg-boss job per event
 * on a queue of its own, and works that queue: every attempt is signed (Standard Webhooks),
 * sent through the service's HTTP engine with the SSRF guard on and a short timeout, and
 * recorded. A 2xx ends the event; any other answer, a timeout or a network error is retried by
 * pg-boss with exponential backoff; a URL the guard refuses ends it at once (it would be refused
 * again). The job engine only waits for the record and the enqueue, never for a receiver.
 */
import { randomBytes } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { HttpEngine } from '../engines/http/types.js';
import { InputError, NotFoundError } from '../errors.js';
import type { WebhookSettings } from './settings.js';
import type { WebhookSecrets } from './secret-store.js';
import type { WebhookDeliveries } from './delivery-store.js';
import { webhookHeaders } from './signing.js';
import type { JobEventDelivery, JobWebhookSink } from './types.js';

/** The pg-boss queue webhook attempts live on. */
export const WEBHOOK_QUEUE = 'webhook-delivery';

/** A retry's wake-up comes this long after its latest start: pg-boss compares with the database's clock. */
const RETRY_WAKE_SLACK_MS = 250;
/** The longest delay a Node timer takes (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A receiver's answer body is read (and dropped) up to this size; past it the attempt failed. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What the dispatcher needs; `boss` is started by its owner (the job engine shares its own). */
export interface WebhookDispatcherDeps {
  boss: PgBoss;
  http: HttpEngine;
  secrets: WebhookSecrets;
  deliveries: WebhookDeliveries;
  settings: WebhookSettings;
  log: Pick<Logger, 'error' | 'warn'>;
}

/** The body every attempt of an event sends. */
export interface WebhookBody {
  type: string;
  /** When the event happened (ISO 8601). */
  timestamp: string;
  /** The job the event is about (job events). */
  jobId?: string;
  /** The change monitor the event is about (`monitor.changed`). */
  monitorId?: string;
  data: unknown;
  metadata?: unknown;
}

type Outcome = 'done' | 'retry';

/** pg-boss's retries of an event's attempts: exponential backoff for about an hour. */
function retryPolicy(s: WebhookSettings) {
  return { retryLimit: s.retryLimit, retryDelay: s.retryDelaySeconds, retryBackoff: true, expireInSeconds: Math.ceil(s.timeoutMs / 1000) + 60 };
}

/** Creates the queue of attempts if it is missing, with its retry policy. */
export async function createWebhookQueue(boss: PgBoss, settings: WebhookSettings): Promise<void> {
  await boss.createQueue(WEBHOOK_QUEUE, { name: WEBHOOK_QUEUE, ...retryPolicy(settings) });
}

/**
 * Records a job event and queues its first attempt (unless the webhook's `events` leaves it
 * out), waking `workerId` when this process works the queue. Any process with the store can
 * do it (the admin CLI's cancel with no server running): a server's worker delivers it later.
 * A storage failure is logged, not thrown.
 */
export async function queueEvent(deps: Pick<WebhookDispatcherDeps, 'boss' | 'deliveries' | 'settings' | 'log'>, event: JobEventDelivery, workerId?: string): Promise<void> {
  const { webhook } = event;
  if (webhook.events && !webhook.events.includes(event.type)) return;
  const id = `msg_${randomBytes(16).toString('base64url')}`;
  const subject = event.type.startsWith('monitor.') ? { monitorId: event.jobId } : { jobId: event.jobId };
  const payload: WebhookBody = { type: event.type, timestamp: new Date().toISOString(), ...subject, data: event.data };
  if (webhook.metadata !== undefined) payload.metadata = webhook.metadata;
  let recorded = false;
  try {
    // Keys take turns: a key's n-th pending event waits behind every other key's first n, so a
    // crawl's thousands of page events (to a dead receiver, say) cannot hold back another key's.
    const ahead = await deps.deliveries.pendingCount(event.keyId);
    await deps.deliveries.addEvent({ id, keyId: event.keyId, jobId: event.jobId, type: event.type, url: webhook.url, body: JSON.stringify(payload) });
    recorded = true;
    await deps.boss.send(WEBHOOK_QUEUE, { eventId: id }, { ...retryPolicy(deps.settings), priority: -ahead });
    // The worker polls no faster than every 0.5 s: wake it so a first attempt starts now.
    if (workerId) deps.boss.notifyWorker(workerId);
  } catch (err) {
    deps.log.error({ err, jobId: event.jobId, type: event.type }, 'a webhook event could not be recorded or queued; it will not be delivered');
    // Recorded but never queued: say so in the deliveries list instead of leaving it pending.
    if (recorded) await deps.deliveries.setStatus(id, 'failed').catch(() => {});
  }
}

/** Records, enqueues and delivers job events; implements the job engine's `JobWebhookSink`. */
export class WebhookDispatcher implements JobWebhookSink {
  private workerId: string | undefined;
  /** Wake-ups of this instance's worker for the retries it scheduled (see `wakeForRetry`). */
  private readonly wakes = new Set<NodeJS.Timeout>();

  constructor(private readonly deps: WebhookDispatcherDeps) {}

  /** Creates the queue and starts this instance's worker on it. */
  async start(): Promise<void> {
    const { boss, settings } = this.deps;
    await createWebhookQueue(boss, settings);
    this.workerId = await boss.work<{ eventId: string }>(
      WEBHOOK_QUEUE,
      { batchSize: settings.concurrency, pollingIntervalSeconds: settings.pollMs / 1000, includeMetadata: true },
      (jobs) => this.work(jobs),
    );
  }

  /** Stops taking attempts on this instance (events wait in the queue for another). */
  async stop(): Promise<void> {
    for (const t of this.wakes) clearTimeout(t);
    this.wakes.clear();
    if (this.workerId) await this.deps.boss.offWork({ id: this.workerId });
    this.workerId = undefined;
  }

  /**
   * Wakes this instance's worker when a retry it just scheduled is due at the latest: pg-boss
   * puts retry n (`retryCount` n before it) between `delay × 2^n` and twice that from now, so
   * the retry starts on time however rarely the worker polls (issue 27: the poll was most of an
   * idle service's CPU). Should this instance stop first, another's poll finds the retry.
   */
  private wakeForRetry(retryCount: number): void {
    const { settings, boss } = this.deps;
    const latestMs = settings.retryDelaySeconds * 2 ** Math.min(16, retryCount + 1) * 1000;
    // Past a timer's range (about 24 days: a large WEBHOOK_RETRY_DELAY_S) the poll finds it instead.
    if (latestMs + RETRY_WAKE_SLACK_MS > MAX_TIMER_MS) return;
    const t = setTimeout(() => {
      this.wakes.delete(t);
      if (this.workerId) boss.notifyWorker(this.workerId);
    }, latestMs + RETRY_WAKE_SLACK_MS);
    t.unref();
    this.wakes.add(t);
  }

  /**
   * Records the event and enqueues its first attempt, unless the webhook's `events` leaves it out.
   * A storage failure is logged, not thrown: a webhook must never fail the job it reports on.
   */
  async deliver(event: JobEventDelivery): Promise<void> {
    await queueEvent(this.deps, event, this.workerId);
  }

  /** Attempts a batch at once; each job is completed or failed (retried) on its own. */
  private async work(jobs: PgBoss.JobWithMetadata<{ eventId: string }>[]): Promise<void> {
    const { boss, log } = this.deps;
    await Promise.all(
      jobs.map(async (job) => {
        let outcome: Outcome;
        try {
          outcome = await this.attempt(job.data.eventId, job.retryCount >= job.retryLimit);
        } catch (err) {
          log.error({ err, eventId: job.data.eventId }, 'a webhook attempt could not be made or recorded; it will be retried');
          outcome = 'retry';
        }
        if (outcome === 'done') await boss.complete(WEBHOOK_QUEUE, job.id);
        else {
          await boss.fail(WEBHOOK_QUEUE, job.id, { message: 'receiver did not accept the event' });
          if (job.retryCount < job.retryLimit) this.wakeForRetry(job.retryCount);
        }
      }),
    );
  }

  /** One signed attempt of one event, recorded whatever happens. */
  private async attempt(eventId: string, last: boolean): Promise<Outcome> {
    const { deliveries, secrets, http, settings } = this.deps;
    const event = await deliveries.event(eventId);
    if (!event || event.status !== 'pending') return 'done';
    let secret: string;
    try {
      secret = (await secrets.get(event.keyId)).secret;
    } catch (err) {
      if (err instanceof NotFoundError) return 'done';
      throw err;
    }
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    let refused = false;
    try {
      const res = await http.request({
        url: event.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...webhookHeaders(secret, event.id, event.body, started) },
        body: event.body,
        timeoutMs: settings.timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
        // Standard Webhooks receivers answer; a redirect is not an acceptance.
        maxRedirects: 0,
        guard: true,
      });
      status = res.status;
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
      // The guard's refusals (a private address, a bad scheme) are input errors; nothing else is.
      refused = err instanceof InputError;
    }
    await deliveries.addAttempt(event.id, { attemptedAt: new Date(started).toISOString(), status, error, durationMs: Date.now() - started });
    if (status !== null && status >= 200 && status < 300) {
      await deliveries.setStatus(event.id, 'delivered');
      return 'done';
    }
    if (refused || last) {
      await deliveries.setStatus(event.id, 'failed');
      return refused ? 'done' : 'retry';
    }
    return 'retry';
  }
}
