/**
 * One turn of one job (issue 25 "The engine"): claim the job (one runner at a time, with a
 * lease renewed while it works), then either run its single executor call (single-call.ts), or
 * keep up to JOB_ITEM_CONCURRENCY items running through the provider's steps (item-turn.ts), and
 * queue the job again behind the other jobs as soon as one waits, so one key's big job holds
 * another key's small one back by one item's time (and a look at the queue) at most. Money per
 * item (item-holds.ts, item-step.ts): hold before it runs, grow to its price once known, charge
 * it under a request id made from the job, the item and the attempt (request-ids.ts), and check
 * the ledger for a charge of an earlier attempt before charging a resumed item, so an item is
 * never charged twice.
 */
import { randomUUID } from 'node:crypto';
import { toServiceError } from '../errors.js';
import { isFinal } from './types.js';
import { jobInput } from './job-input.js';
import type { RunnerDeps, Stop } from './runner-deps.js';
import { JobEnds } from './job-ends.js';
import { ItemHolds } from './item-holds.js';
import { runSingleCall } from './single-call.js';
import { runItems } from './item-turn.js';

export type { RunnerDeps } from './runner-deps.js';

/** Longest a turn keeps a worker for one job's items when no other job waits. */
const TURN_MS = 10_000;

/** Runs job turns; tracks the ones running here so cancel and shutdown can abort them. */
export class JobRunner {
  private readonly running = new Map<string, { abort(why: Stop): void }>();
  private stopping = false;
  private readonly holds: ItemHolds;
  private readonly ends: JobEnds;

  constructor(private readonly d: RunnerDeps) {
    this.holds = new ItemHolds(d);
    this.ends = new JobEnds(d, (jobId) => this.holds.forget(jobId));
  }

  /** Aborts this instance's turn of `jobId`, if any (a cancel received here). */
  cancelLocal(jobId: string): void {
    this.running.get(jobId)?.abort('cancelled');
  }

  /** Shutdown: every running turn hands its items back and queues its job again. */
  stopAll(): void {
    this.stopping = true;
    for (const t of this.running.values()) t.abort('stopping');
  }

  /** Turns running here now. */
  get active(): number {
    return this.running.size;
  }

  /** One turn of `jobId` (the pg-boss handler). */
  async turn(jobId: string): Promise<void> {
    const { store, settings } = this.d;
    if (this.stopping) return this.d.requeue(jobId);
    const runner = randomUUID();
    const claim = await store.acquire(jobId, runner, settings.leaseSeconds, settings.maxRunningPerKey);
    if (!claim) {
      const job = await store.get(jobId);
      if (!job || isFinal(job.status)) return;
      // Its key runs as many jobs as it may: look again shortly.
      if (job.status === 'queued') return this.d.requeue(jobId, 1);
      // Another runner holds it: alive (it queues the job itself) or dead (its claim lapses).
      return this.d.requeue(jobId, Math.ceil(await store.claimLeft(jobId)) + 1);
    }
    const job = claim.job;
    if (claim.started) this.d.emit(job, 'job.started');
    const ctl = new AbortController();
    let why: Stop | undefined;
    const abort = (w: Stop) => {
      why ??= w;
      ctl.abort(new Error(`job ${w}`));
    };
    this.running.set(jobId, { abort });
    const held = new Set<number>();
    const beat = setInterval(() => {
      store.heartbeat(jobId, runner, [...held], settings.leaseSeconds).then(
        (status) => {
          if (status === 'cancelled') abort('cancelled');
        },
        (err) => this.d.log.warn({ err, jobId }, 'job heartbeat failed'),
      );
    }, Math.max(500, (settings.leaseSeconds * 1000) / 3));
    let again = false;
    try {
      const key = await this.d.keys.get(job.keyId);
      job.input = await jobInput(this.d.engines.files, job.input);
      again = job.stepwise
        ? await runItems({ d: this.d, ends: this.ends, holds: this.holds, signal: ctl.signal, held, why: () => why, until: Date.now() + TURN_MS }, job, key)
        : await runSingleCall(this.d, this.ends, job, key, ctl.signal, () => why);
    } catch (err) {
      const e = toServiceError(err);
      if (!why) {
        this.d.log.error({ err, jobId }, 'job failed');
        await this.ends.end(jobId, 'failed', { errorCode: e.code, errorMessage: e.message });
      } else again = why === 'stopping';
    } finally {
      clearInterval(beat);
      this.running.delete(jobId);
      // An ended job's claim went with it.
      if (!this.ends.takeEnded(jobId)) await store.releaseRunner(jobId, runner).catch(() => {});
    }
    if (again) await this.d.requeue(jobId);
  }
}
