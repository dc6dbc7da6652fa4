/**
 * The jobs API behind every lane (issue 25): submit (checked before it is accepted), read, list,
 * cancel; the pg-boss workers that run job turns on this instance; retention. Any instance works
 * any job: a turn is a pg-boss queue entry, and the job's state lives in the service's tables.
 */
import { randomBytes } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { KeyRecord } from '../keys/types.js';
import { NotFoundError } from '../errors.js';
import { JOB_QUEUE } from './boss.js';
import { planJob, type JobRequest } from './plan.js';
import { JobRunner, type RunnerDeps } from './runner.js';
import type { JobQuery, JobStore } from './store.js';
import type { JobRecord, ResultPage } from './types.js';
import { jobView } from './view.js';
import { jobOutput } from './job-output.js';
import { INPUT_PENDING, jobInput, keepInput, largeInput, orphanInputs } from './job-input.js';
import type { JobEventDelivery, JobWebhookConfig, JobWebhookSink } from './webhooks.js';
import { WorkerWakeups } from './wakeups.js';

/** A job submission. */
export interface Submission extends JobRequest {
  options?: Record<string, unknown>;
  webhook?: JobWebhookConfig;
}

/** What the service needs beyond the runner's needs. */
export interface JobServiceDeps extends Omit<RunnerDeps, 'emit' | 'requeue' | 'othersWaiting'> {
  boss: PgBoss;
  /** Resolved at each event, so a dispatcher registered after boot is used. */
  webhooks: () => JobWebhookSink;
}

/** When this instance looks again for a turn that threw (pg-boss offers it again at once). */
const RETRY_AFTER_MS = 1000;

/** A produced file's signed link (`/files/<id>?expires=…`, core/engines/files). */
const FILE_LINK = /\/files\/([A-Za-z0-9_-]{8,128})\?expires=/g;

/** How often the stored inputs of jobs that no longer exist are looked for (and once at boot). */
const ORPHAN_SWEEP_MS = 60 * 60 * 1000;

/** New job ids: `job_` + 16 random bytes. */
export function newJobId(): string {
  return `job_${randomBytes(16).toString('base64url')}`;
}

/** Jobs on this instance: API, workers and retention. */
export class JobService {
  private readonly runner: JobRunner;
  private workerIds: string[] = [];
  /** This instance's workers are woken by what it queues; they poll only rarely (see `start`). */
  private readonly wakeups = new WorkerWakeups(() => {
    for (const id of this.workerIds) this.d.boss.notifyWorker(id);
  });
  private sweeper?: NodeJS.Timeout;
  private orphanSweeper?: NodeJS.Timeout;
  private orphanSweep?: Promise<unknown>;
  private stopped?: Promise<void>;
  private readonly log: Logger;
  /** Each job's last event handed to the webhook sink, the next one waits for. */
  private readonly eventChains = new Map<string, Promise<void>>();

  constructor(private readonly d: JobServiceDeps) {
    this.log = d.log.child({ component: 'jobs' });
    this.runner = new JobRunner({ ...d, log: this.log, emit: (job, type, data) => this.emit(job, type, data), requeue: (id, delay) => this.requeue(id, delay), othersWaiting: async () => ((await this.d.boss.getQueueSize(JOB_QUEUE)) ?? 0) > 0 });
  }

  /** Starts this instance's workers and the retention sweep. */
  async start(): Promise<void> {
    const { workers, pollSeconds } = this.d.settings;
    for (let i = 0; i < workers; i++) {
      let id = '';
      // One worker polls every JOB_POLL_SECONDS, the others `workers` times less often (issue 27:
      // each poll is a statement, and on the embedded store the four polls were most of an idle
      // service's CPU). What a poll finds may have more behind it (another instance's turns,
      // expired claims), so a worker that takes a turn wakes the next one, which looks at once
      // and does the same if it finds one: the idle workers join within a statement each.
      const pollingIntervalSeconds = i === 0 ? pollSeconds : pollSeconds * workers;
      id = await this.d.boss.work<{ jobId: string }>(JOB_QUEUE, { pollingIntervalSeconds }, async ([entry]) => {
        const next = this.workerIds[(i + 1) % this.workerIds.length];
        if (next && next !== id) this.d.boss.notifyWorker(next);
        try {
          await this.turn(entry!.data.jobId);
        } finally {
          // A pg-boss worker that ran a turn sleeps what is left of its poll interval before it
          // looks again, even with more turns queued (a stale turn of an ended job takes
          // milliseconds): told now, it looks again as soon as this one is recorded, and sleeps
          // only once the queue has nothing for it.
          this.d.boss.notifyWorker(id);
        }
      });
      this.workerIds.push(id);
    }
    const every = Math.min(60_000, Math.max(1000, this.d.settings.retentionMs));
    this.sweeper = setInterval(() => void this.purge().catch((err) => this.log.error({ err }, 'job retention sweep failed')), every);
    this.sweeper.unref();
    // At boot (a crash may have left some) and then now and again: a job row deleted without its
    // input file is rare, and the sweep lists the whole file store.
    const sweepOrphans = () => {
      this.orphanSweep ??= this.sweepOrphanInputs()
        .catch((err) => this.log.error({ err }, 'job input orphan sweep failed'))
        .finally(() => (this.orphanSweep = undefined));
    };
    sweepOrphans();
    this.orphanSweeper = setInterval(sweepOrphans, ORPHAN_SWEEP_MS);
    this.orphanSweeper.unref();
  }

  /** Deletes the stored inputs of jobs that no longer exist; answers how many went. */
  async sweepOrphanInputs(): Promise<number> {
    const removed = await orphanInputs(this.d.engines.files, (ids) => this.d.store.existing(ids));
    if (removed > 0) this.log.info({ removed }, 'removed the stored inputs of jobs that no longer exist');
    return removed;
  }

  /** Checks and records a job, queues its first turn and wakes a local worker. */
  async submit(key: KeyRecord, s: Submission): Promise<JobRecord> {
    const plan = planJob(this.d.registry, key, s, this.log);
    const large = largeInput(s.input, this.d.settings.inputInlineBytes);
    const job = await this.d.store.insert({
      id: newJobId(),
      keyId: key.id,
      type: s.type,
      target: plan.targetId,
      provider: plan.binding?.plugin.id ?? s.provider ?? null,
      stepwise: plan.binding !== undefined,
      input: large === undefined ? s.input : INPUT_PENDING,
      options: s.options ?? null,
      webhook: s.webhook ?? null,
    });
    if (large !== undefined) {
      // The row first, then its file: the orphan sweep never meets a file whose job is yet to come.
      try {
        job.input = await keepInput(this.d.engines.files, job.id, large);
        await this.d.store.setInput(job.id, job.input);
      } catch (err) {
        await this.d.store.remove([job.id]).catch((e) => this.log.warn({ err: e, jobId: job.id }, 'a job whose input could not be stored was not removed'));
        throw err;
      }
    }
    await this.requeue(job.id);
    return job;
  }

  /**
   * One turn (the pg-boss handler). A turn that throws is failed by pg-boss and offered again
   * (the queue's retry policy, no delay): this instance's workers look again a second later, the
   * pace the old once-a-second polling kept, so a turn that keeps failing (its database gone)
   * neither spins nor waits for a rare poll.
   */
  private async turn(jobId: string): Promise<void> {
    try {
      await this.runner.turn(jobId);
    } catch (err) {
      this.wakeups.after(RETRY_AFTER_MS);
      throw err;
    }
  }

  /** Queues a turn of `jobId` and wakes this instance's workers when it may run (wakeups.ts). */
  private async requeue(jobId: string, delaySeconds = 0): Promise<void> {
    await this.d.boss.send(JOB_QUEUE, { jobId }, delaySeconds > 0 ? { startAfter: delaySeconds } : {});
    // A worker told at once makes a short job's overhead milliseconds, not a poll interval.
    if (delaySeconds === 0) this.wakeups.now();
    else this.wakeups.after(delaySeconds * 1000);
  }

  /** `keyId`'s job, or 404 `NOT_FOUND` (another key's job looks exactly like an unknown one). */
  async get(keyId: string | null, id: string): Promise<JobRecord> {
    const job = await this.d.store.get(id);
    if (!job || (keyId !== null && job.keyId !== keyId)) throw new NotFoundError(`Job not found: ${id}`);
    return job;
  }

  /** True when `jobId` exists and belongs to `keyId` (the webhook deliveries route). */
  async jobExists(keyId: string, jobId: string): Promise<boolean> {
    const job = await this.d.store.get(jobId);
    return job !== undefined && job.keyId === keyId;
  }

  /** A job's status view, with a page of its results unless `skipData` (stepwise jobs). */
  async view(keyId: string | null, id: string, page: { cursor: number; limit: number; skipData: boolean }): Promise<Record<string, unknown>> {
    const job = await this.get(keyId, id);
    let results: ResultPage | undefined;
    if (job.stepwise && !page.skipData) results = await this.d.store.results(id, page.cursor, page.limit);
    const view = jobView(job, results);
    if (page.skipData) delete view.data;
    return view;
  }

  /**
   * A completed stepwise job's results in its capability's synchronous output shape (the MCP lane
   * answers a tool call that ran as a job with it); `keyId`'s job only.
   */
  async output(keyId: string, id: string): Promise<Record<string, unknown>> {
    const job = await this.get(keyId, id);
    const cap = this.d.registry.capability(job.target);
    return jobOutput(cap?.def, await jobInput(this.d.engines.files, job.input), await this.d.store.items.listed(id));
  }

  /** Jobs, newest first (a key's own, or all for the admin API). */
  list(q: JobQuery): Promise<JobRecord[]> {
    return this.d.store.list(q);
  }

  /**
   * Cancels a queued or running job: its running items are aborted (here at once, on another
   * instance at its next heartbeat), items done stay charged, nothing else runs or is charged.
   */
  async cancel(keyId: string | null, id: string): Promise<JobRecord> {
    const job = await this.get(keyId, id);
    if (await this.d.store.finish(id, 'cancelled')) {
      this.runner.cancelLocal(id);
      const ended = (await this.d.store.get(id))!;
      this.emit(ended, 'job.cancelled');
      return ended;
    }
    return job;
  }

  /** Jobs per state and the oldest queued job's age, for /metrics. */
  gauges(): ReturnType<JobStore['gauges']> {
    return this.d.store.gauges();
  }

  /**
   * Deletes jobs that ended more than JOB_RETENTION_MS ago, with their items and the files they
   * produced or their input was kept in: the file store's links found in their outputs and input.
   */
  async purge(): Promise<number> {
    const ids = await this.d.store.expired(new Date(Date.now() - this.d.settings.retentionMs));
    for (const id of ids) {
      const files = new Set<string>();
      for (const text of await this.d.store.outputs(id)) for (const m of text.matchAll(FILE_LINK)) files.add(m[1]!);
      for (const f of files) await this.d.engines.files.delete(f).catch((err) => this.log.warn({ err, jobId: id }, 'a file of a purged job could not be removed'));
    }
    await this.d.store.remove(ids);
    return ids.length;
  }

  /** Hands an event to the webhook sink, never waiting for it or failing the job. */
  private emit(job: JobRecord, type: JobEventDelivery['type'], data?: unknown): void {
    const webhook = job.webhook;
    if (!webhook || (webhook.events && !webhook.events.includes(type))) return;
    const event: JobEventDelivery = { keyId: job.keyId, jobId: job.id, webhook, type, data: data ?? jobView(job) };
    let sink: JobWebhookSink;
    try {
      sink = this.d.webhooks();
    } catch (err) {
      this.log.error({ err }, 'no webhook sink');
      return;
    }
    // One job's events are recorded one after another, in the order the job made them (its items
    // are recorded in batches while later ones run, so their events would otherwise race).
    const next = (this.eventChains.get(job.id) ?? Promise.resolve())
      .then(() => sink.deliver(event))
      .catch((err) => this.log.error({ err, jobId: job.id, type }, 'a job event could not be handed to the webhook dispatcher'));
    this.eventChains.set(job.id, next);
    void next.then(() => {
      if (this.eventChains.get(job.id) === next) this.eventChains.delete(job.id);
    });
  }

  /**
   * Drains (SIGTERM): running turns hand their items back and queue their jobs again for any
   * instance, then pg-boss stops. Idempotent.
   */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      clearInterval(this.sweeper);
      clearInterval(this.orphanSweeper);
      this.wakeups.stop();
      await this.orphanSweep;
      this.runner.stopAll();
      await this.d.boss.stop({ graceful: true, wait: true, timeout: 10_000, close: true });
    })();
    return this.stopped;
  }
}
