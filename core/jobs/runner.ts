/**
 * One turn of one job (issue 25 "The engine"): claim the job (one runner at a time, with a
 * lease renewed while it works), then either run its single executor call, or keep up to
 * JOB_ITEM_CONCURRENCY items running through the provider's steps, and queue the job again behind
 * the other jobs as soon as one waits, so one key's big job holds another key's small one back by
 * one item's time (and a look at the queue) at most. Money per item: hold before it runs, grow to its price once known, charge it under a
 * request id made from the job, the item and the attempt, and check the ledger for a charge of an
 * earlier attempt before charging a resumed item, so an item is never charged twice.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Executor } from '../execution/executor.js';
import type { Ledger } from '../credits/ledger.js';
import type { KeyStore } from '../keys/key-store.js';
import type { KeyRecord } from '../keys/types.js';
import type { Registry } from '../registry/registry.js';
import type { ProviderBinding } from '../registry/types.js';
import type { Engines } from '../engines/types.js';
import type { RunContext } from '../plugin/types.js';
import type { JobStepResult } from '../plugin/job-steps.js';
import { usageRecorder } from '../plugin/usage-recorder.js';
import { isCreditAmount } from '../credits/cost.js';
import { InsufficientCreditsError, ServiceError, toServiceError } from '../errors.js';
import { LaneAdapter } from '../lane/adapter.js';
import type { JobStore } from './store.js';
import type { JobSettings } from './settings.js';
import type { ClaimedItem, JobRecord } from './types.js';
import { isFinal } from './types.js';
import type { JobEventDelivery } from './webhooks.js';

const DEFAULT_ITEM_TIMEOUT_MS = 120_000;

/** Longest a turn keeps a worker for one job's items when no other job waits. */
const TURN_MS = 10_000;

/** How often a turn looks whether another job waits for a worker. */
const WAIT_CHECK_MS = 200;

/** What a turn needs. */
export interface RunnerDeps {
  store: JobStore;
  registry: Registry;
  executor: Executor;
  ledger: Ledger;
  keys: KeyStore;
  engines: Engines;
  log: Logger;
  settings: JobSettings;
  /** Hands an event of `job` to the webhook sink (never waits for it). */
  emit(job: JobRecord, type: JobEventDelivery['type'], data?: unknown): void;
  /** Queues the job's next turn, `delaySeconds` from now. */
  requeue(jobId: string, delaySeconds?: number): Promise<void>;
  /** Whether other job turns wait in the queue (then a turn yields after its round). */
  othersWaiting(): Promise<boolean>;
}

/** Why a turn's signal fired. */
type Stop = 'cancelled' | 'stopping';

/** Runs job turns; tracks the ones running here so cancel and shutdown can abort them. */
export class JobRunner {
  private readonly running = new Map<string, { abort(why: Stop): void }>();
  private stopping = false;
  /** Jobs a turn here has just ended (their runner claim ended with them). */
  private readonly ended = new Set<string>();

  constructor(private readonly d: RunnerDeps) {}

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
    const items = new Set<number>();
    const beat = setInterval(() => {
      store.heartbeat(jobId, runner, [...items], settings.leaseSeconds).then(
        (status) => {
          if (status === 'cancelled') abort('cancelled');
        },
        (err) => this.d.log.warn({ err, jobId }, 'job heartbeat failed'),
      );
    }, Math.max(500, (settings.leaseSeconds * 1000) / 3));
    let again = false;
    try {
      const key = await this.d.keys.get(job.keyId);
      again = job.stepwise ? await this.items(job, key, ctl.signal, items, () => why, Date.now() + TURN_MS) : await this.single(job, key, ctl.signal, () => why);
    } catch (err) {
      const e = toServiceError(err);
      if (!why) {
        this.d.log.error({ err, jobId }, 'job failed');
        await this.end(jobId, 'failed', { errorCode: e.code, errorMessage: e.message });
      } else again = why === 'stopping';
    } finally {
      clearInterval(beat);
      this.running.delete(jobId);
      // An ended job's claim went with it.
      if (!this.ended.delete(jobId)) await store.releaseRunner(jobId, runner).catch(() => {});
    }
    if (again) await this.d.requeue(jobId);
  }

  /** Ends a job and tells its webhook; false when it had ended already (cancelled meanwhile). */
  private async end(jobId: string, status: 'completed' | 'failed', fields: Parameters<JobStore['finish']>[2] = {}, webhook = true): Promise<boolean> {
    if (!(await this.d.store.finish(jobId, status, fields))) return false;
    this.ended.add(jobId);
    const job = webhook ? await this.d.store.get(jobId) : undefined;
    if (job) this.d.emit(job, status === 'completed' ? 'job.completed' : 'job.failed');
    return true;
  }

  /** A job without steps: one executor call charged as `/api/v2/run` charges it. Answers whether to queue it again. */
  private async single(job: JobRecord, key: KeyRecord, signal: AbortSignal, why: () => Stop | undefined): Promise<boolean> {
    const { store, registry, executor } = this.d;
    const item = await store.claimCall(job.id, this.d.settings.leaseSeconds);
    if (!item) {
      // The call is leased by a runner that died (look again once its lease lapses), or its
      // instance died after recording it and before ending the job.
      if ((await store.open(job.id)).running > 0) await this.d.requeue(job.id, 1);
      else await this.end(job.id, 'failed', { errorCode: 'INTERNAL', errorMessage: 'The job was interrupted. Please submit it again.' });
      return false;
    }
    const prior = await store.charged(earlierAttempts(job.id, item));
    // A charge whose result was lost with its instance is given back before the call runs again.
    if (prior > 0) await this.d.ledger.adjust(job.keyId, prior, `job ${job.id}: result lost with a stopped instance; its charge is refunded before the call runs again`);
    // The jobs lane's call goes through the one lane adapter, as every lane's does (issue 29).
    const lane = new LaneAdapter('jobs', registry, executor);
    const target = lane.target({ type: job.type, id: job.target });
    try {
      const r = await lane.run({
        requestId: requestIdOf(job.id, item),
        key,
        type: job.type,
        id: job.target,
        resolved: target,
        provider: job.provider ?? undefined,
        input: job.input,
        signal,
        log: this.d.log.child({ jobId: job.id }),
      });
      const credits = r.served.credits;
      // Cancelled as the call finished: the call was done and charged, so the job shows it.
      if (!(await this.end(job.id, 'completed', { data: r.data, credits, done: 1 }, job.webhook !== null))) await store.record(job.id, credits, r.data);
      return false;
    } catch (err) {
      if (why()) {
        await store.unclaim([item.id]);
        return why() === 'stopping';
      }
      const e = toServiceError(err);
      await this.end(job.id, 'failed', { errorCode: e.code, errorMessage: e.message });
      return false;
    }
  }

  /**
   * A stepwise job's items, up to JOB_ITEM_CONCURRENCY at a time, the next one claimed as soon as
   * one ends (no barrier between rounds and no queue round trip), until none is left to claim,
   * another job waits in the queue (looked at every WAIT_CHECK_MS), the turn's time is up or the job
   * is stopped; the items in flight then finish. Answers whether to queue the job again.
   */
  private async items(job: JobRecord, key: KeyRecord, signal: AbortSignal, running: Set<number>, why: () => Stop | undefined, until: number): Promise<boolean> {
    const { store, settings } = this.d;
    const binding = this.binding(job);
    const steps = binding.impl.steps!;
    if (!job.seeded) {
      const seed = await steps.seed(job.input, this.ctx(job, key, binding, `${job.id}/seed`, signal));
      const limit = steps.limit(job.input);
      await store.seed(job.id, seed, limit, steps.knownTotal ? limit : null);
    }
    const inflight = new Set<Promise<void>>();
    let broke: InsufficientCreditsError | undefined;
    let failure: unknown;
    let yielding = false;
    let lookedAt = Date.now();
    const fill = async () => {
      const want = settings.itemConcurrency - inflight.size;
      if (want <= 0) return;
      for (const item of await store.claim(job.id, want, settings.leaseSeconds)) {
        running.add(item.id);
        const p: Promise<void> = this.item(job, key, binding, item, signal, why)
          .catch(async (err: unknown) => {
            await store.unclaim([item.id]);
            if (err instanceof InsufficientCreditsError) broke ??= err;
            else failure ??= err;
          })
          .finally(() => {
            running.delete(item.id);
            inflight.delete(p);
          });
        inflight.add(p);
      }
    };
    await fill();
    if (inflight.size === 0) {
      // Items still leased by a runner that outlived its turn (or died): look again shortly.
      if (!(await this.completeIfDone(job))) await this.d.requeue(job.id, 1);
      return false;
    }
    while (inflight.size > 0) {
      await Promise.race(inflight);
      // Stopping, failing or yielding: let the items in flight finish, claim no more.
      if (broke || failure || why() || yielding) continue;
      if (Date.now() >= until) yielding = true;
      else if (Date.now() - lookedAt >= WAIT_CHECK_MS) {
        lookedAt = Date.now();
        yielding = await this.d.othersWaiting();
      }
      if (!yielding) await fill();
    }
    if (failure) throw failure;
    if (broke) {
      await this.end(job.id, 'failed', { errorCode: broke.code, errorMessage: broke.message });
      return false;
    }
    const w = why();
    if (w) return w === 'stopping';
    // The last item ends the job at once rather than in one more turn.
    return !(await this.completeIfDone(job));
  }

  /** Completes the job when nothing is left to run (none pending, none running, or its limit reached); answers whether it did. */
  private async completeIfDone(job: JobRecord): Promise<boolean> {
    const open = await this.d.store.open(job.id);
    if (open.running > 0) return false;
    if (open.pending > 0 && (open.limit === null || open.results < open.limit)) return false;
    await this.end(job.id, 'completed', {}, job.webhook !== null);
    return true;
  }

  /** Runs, prices, charges and records one item; throws `InsufficientCreditsError` when its price cannot be held. */
  private async item(job: JobRecord, key: KeyRecord, binding: ProviderBinding, item: ClaimedItem, signal: AbortSignal, why: () => Stop | undefined): Promise<void> {
    const { store, ledger } = this.d;
    const requestId = requestIdOf(job.id, item);
    const prior = item.attempts > 1 ? await store.charged(earlierAttempts(job.id, item)) : 0;
    const cost = this.d.registry.capability(job.target)!.def.cost;
    // The hold: what the job's last item cost, taken before this one runs.
    const hold = prior > 0 ? 0 : (this.lastPrice.get(job.id) ?? 0);
    await ledger.reserve(key, requestId, hold);
    let out: JobStepResult;
    try {
      const limit = AbortSignal.any([signal, AbortSignal.timeout(binding.endpoint.def.timeoutMs ?? DEFAULT_ITEM_TIMEOUT_MS)]);
      out = await binding.impl.steps!.run(job.input, { key: item.key, data: item.data }, this.ctx(job, key, binding, requestId, limit));
    } catch (err) {
      await ledger.release(requestId);
      if (why()) {
        await store.unclaim([item.id]);
        return;
      }
      const e = toServiceError(err);
      if (await store.complete(job.id, item.id, { failed: true, result: { key: item.key, error: { code: e.code, message: e.message } }, credits: 0 })) {
        this.d.emit(job, 'job.page', { key: item.key, error: { code: e.code, message: e.message } });
      }
      return;
    }
    if (out.result === undefined) {
      await ledger.release(requestId);
      await store.complete(job.id, item.id, { skipped: true });
      if (out.more?.length) await store.offer(job.id, out.more);
      return;
    }
    const priced = out.units && Object.keys(out.units).length > 0 ? cost.settle(job.input, out.units) : 0;
    const price = isCreditAmount(priced) ? priced : 0;
    let credits = prior;
    if (prior === 0 && price > 0) {
      try {
        if (hold === 0) await ledger.reserve(key, requestId, price);
        else if (price > hold) await ledger.extend(key, requestId, price - hold);
      } catch (err) {
        await ledger.release(requestId);
        throw err;
      }
      this.lastPrice.set(job.id, price);
      await ledger.settle(requestId, price, job.target);
      credits = price;
    } else await ledger.release(requestId);
    const recorded = await store.complete(job.id, item.id, { failed: out.failed === true, result: out.result, credits });
    if (!recorded && credits > prior) {
      // Finished meanwhile by another runner, which charged for it: give this charge back.
      await ledger.adjust(job.keyId, credits - prior, `job ${job.id}: item ${item.key} finished twice; the second charge is refunded`);
      return;
    }
    if (out.more?.length) await store.offer(job.id, out.more);
    this.d.emit(job, 'job.page', out.result);
  }

  /** Price of each job's last charged item on this instance: the next item's hold. */
  private readonly lastPrice = new Map<string, number>();

  /** The provider whose steps run `job`. */
  private binding(job: JobRecord): ProviderBinding {
    const cap = this.d.registry.capability(job.target);
    const b = cap?.providers.find((p) => p.plugin.id === job.provider && p.impl.steps);
    if (!b) throw new ServiceError('NOT_CONFIGURED', 'Service not configured. Please contact support.');
    return b;
  }

  /** The provider's run context for a job's step, bound to the job's key and signal. */
  private ctx(job: JobRecord, key: KeyRecord, b: ProviderBinding, requestId: string, signal: AbortSignal): RunContext<unknown> {
    const log = this.d.log.child({ jobId: job.id, provider: b.plugin.id });
    return {
      config: b.plugin.config,
      state: b.plugin.state,
      engines: this.d.engines,
      log,
      signal,
      requestId,
      provider: b.plugin.id,
      caller: key.id,
      usage: usageRecorder({}),
      reserveFor: async () => {},
      setNative() {},
      call: <T>(capability: string, input: unknown) => this.d.executor.callFree({ requestId, key, signal, log }, capability, input) as Promise<T>,
    };
  }
}

/** The ledger request id of one attempt at one item. */
function requestIdOf(jobId: string, item: ClaimedItem): string {
  return `${jobId}/${item.id}/${item.attempts}`;
}

/** Request ids of the item's earlier attempts. */
function earlierAttempts(jobId: string, item: ClaimedItem): string[] {
  return Array.from({ length: item.attempts - 1 }, (_, i) => `${jobId}/${item.id}/${i + 1}`);
}
