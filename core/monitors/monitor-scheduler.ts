/**
 * Turns due monitors into runs, on every instance at once: each instance claims due ticks from
 * the store (one claimer per tick) and puts them on the job queue, where any instance's worker
 * takes them; so runs spread over instances, and a tick whose instance dies is run by another
 * once its queue entry expires (the store's `startRun` keeps it to one run).
 */
import type { PluginLogger } from '../plugin/types.js';
import type { MonitorRunner } from './monitor-runner.js';
import type { MonitorStore } from './monitor-store.js';
import type { ClaimedRun } from './types.js';

/** The part of the queue library (pg-boss) monitors use. */
export interface MonitorQueue {
  createQueue(name: string): Promise<void>;
  send(name: string, data: object, options: { singletonKey?: string; expireInSeconds?: number; retryLimit?: number }): Promise<string | null>;
  work(name: string, options: { batchSize?: number; pollingIntervalSeconds?: number }, handler: (jobs: { data: ClaimedRun }[]) => Promise<unknown>): Promise<string>;
  offWork(name: string): Promise<void>;
  notifyWorker?(workerId: string): void;
}

/** The queue monitor runs travel on. */
export const MONITOR_QUEUE = 'monitor-run';

/** Least time between two polls of this instance's run worker, in ms (see `start`). */
const WORKER_POLL_MIN_MS = 60_000;

/** Scheduler settings. */
export interface MonitorSchedulerOptions {
  /** How often an instance looks for due monitors. */
  pollMs: number;
  /** Most ticks one look claims. */
  batch: number;
  /** Longest a run may take before its queue entry counts as lost and another instance may take it. */
  runTimeoutMs: number;
  log: PluginLogger;
}

/** Claims due ticks and runs them through the queue. */
export class MonitorScheduler {
  private timer: NodeJS.Timeout | undefined;
  private looking = false;
  private workerId: string | undefined;
  private readonly stopping = new AbortController();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly store: MonitorStore,
    private readonly runner: MonitorRunner,
    /** Without a queue (tests of the store alone), the claiming instance runs its ticks itself. */
    private readonly queue: MonitorQueue | null,
    private readonly opts: MonitorSchedulerOptions,
  ) {}

  /** Starts looking for due monitors and taking runs from the queue. */
  async start(): Promise<void> {
    if (this.queue) {
      await this.queue.createQueue(MONITOR_QUEUE);
      // A monitor runs one scrape at a time per worker; the browser and fetch engines queue
      // the scrapes fairly with every other caller's. Every look that queues runs wakes this
      // worker (see `look`), so its own poll only finds runs another instance queued and did not
      // take, or whose entry expired: rare, and each poll is a query (issue 27: idle CPU).
      const pollSeconds = Math.max(this.opts.pollMs, WORKER_POLL_MIN_MS) / 1000;
      this.workerId = await this.queue.work(MONITOR_QUEUE, { batchSize: 1, pollingIntervalSeconds: pollSeconds }, async (jobs) => {
        for (const job of jobs) await this.track(this.runner.run(job.data, this.stopping.signal));
      });
    }
    this.timer = setInterval(() => void this.look(), this.opts.pollMs);
    this.timer.unref();
    void this.look();
  }

  private track(p: Promise<void>): Promise<void> {
    this.running.add(p);
    return p.finally(() => this.running.delete(p));
  }

  /** One look: claim what is due and hand it on. */
  private async look(): Promise<void> {
    if (this.looking || this.stopping.signal.aborted) return;
    this.looking = true;
    try {
      const claims = await this.store.claimDue(this.opts.batch);
      for (const c of claims) {
        if (!this.queue) {
          void this.track(this.runner.run(c, this.stopping.signal));
          continue;
        }
        await this.queue.send(MONITOR_QUEUE, c, { singletonKey: `${c.id}:${c.tick}`, expireInSeconds: Math.ceil(this.opts.runTimeoutMs / 1000), retryLimit: 1 });
      }
      if (claims.length && this.workerId) this.queue?.notifyWorker?.(this.workerId);
    } catch (err) {
      if (!this.stopping.signal.aborted) this.opts.log.warn({ err }, 'monitors: looking for due monitors failed');
    } finally {
      this.looking = false;
    }
  }

  /** Stops claiming, stops taking runs, aborts the ones in flight and waits for them. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    if (this.queue) await this.queue.offWork(MONITOR_QUEUE).catch(() => undefined);
    await Promise.allSettled([...this.running]);
  }
}
