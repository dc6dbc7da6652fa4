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
import { ItemRecorder } from './item-recorder.js';
import { jobInput } from './job-input.js';

const DEFAULT_ITEM_TIMEOUT_MS = 120_000;

/** Longest a turn keeps a worker for one job's items when no other job waits. */
const TURN_MS = 10_000;

/** How often a turn looks whether another job waits for a worker. */
const WAIT_CHECK_MS = 200;

/** Items a turn claims beyond its free steps, so a claim is one statement per batch of items. */
const CLAIM_AHEAD = 16;

/** Items started and not yet recorded, per step slot: how far the records may lag the steps. */
const BACKLOG_FACTOR = 4;

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

/** A claimed item with its hold taken: `prior` is what an earlier attempt was charged (then nothing is held). */
interface HeldItem {
  item: ClaimedItem;
  prior: number;
  hold: number;
}

/** Why a turn's signal fired. */
type Stop = 'cancelled' | 'stopping';

/** Runs job turns; tracks the ones running here so cancel and shutdown can abort them. */
export class JobRunner {
  private readonly running = new Map<string, { abort(why: Stop): void }>();
  private stopping = false;
  /** Jobs a turn here has just ended (their runner claim ended with them). */
  private readonly endedHere = new Set<string>();

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
      again = job.stepwise ? await this.items(job, key, ctl.signal, held, () => why, Date.now() + TURN_MS) : await this.single(job, key, ctl.signal, () => why);
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
      if (!this.endedHere.delete(jobId)) await store.releaseRunner(jobId, runner).catch(() => {});
    }
    if (again) await this.d.requeue(jobId);
  }

  /** Ends a job and tells its webhook; false when it had ended already (cancelled meanwhile). */
  private async end(jobId: string, status: 'completed' | 'failed', fields: Parameters<JobStore['finish']>[2] = {}, webhook = true): Promise<boolean> {
    if (!(await this.d.store.finish(jobId, status, fields))) return false;
    await this.ended(jobId, status, webhook);
    return true;
  }

  /** After a turn here ended its job: its runner claim went with it; its webhook hears the end. */
  private async ended(jobId: string, status: 'completed' | 'failed', webhook: boolean): Promise<void> {
    this.endedHere.add(jobId);
    this.lastPrice.delete(jobId);
    const job = webhook ? await this.d.store.get(jobId) : undefined;
    if (job) this.d.emit(job, status === 'completed' ? 'job.completed' : 'job.failed');
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
        await store.items.unclaim([item.id]);
        return why() === 'stopping';
      }
      const e = toServiceError(err);
      await this.end(job.id, 'failed', { errorCode: e.code, errorMessage: e.message });
      return false;
    }
  }

  /**
   * A stepwise job's items: up to JOB_ITEM_CONCURRENCY steps running at a time, the next one
   * started as soon as one's step returns, from items claimed a batch ahead (one statement per
   * CLAIM_AHEAD items, not one per item). A finished item is charged and then recorded by the
   * turn's group commit (item-recorder.ts) while the next steps already run, so the store's
   * round trips stay off the items' path. Stops claiming once none is left, another job waits in
   * the queue (looked at every WAIT_CHECK_MS), the turn's time is up or the job is stopped; items
   * claimed but not started go back, the ones started finish. Answers whether to queue the job again.
   */
  private async items(job: JobRecord, key: KeyRecord, signal: AbortSignal, held: Set<number>, why: () => Stop | undefined, until: number): Promise<boolean> {
    const { store, settings } = this.d;
    const binding = this.binding(job);
    const steps = binding.impl.steps!;
    /** False once a claim found fewer than it asked and no batch has offered new items since. */
    let more = true;
    let wake = () => {};
    const recorder = new ItemRecorder(store.items, this.d.ledger, job.id, () => {
      more = true;
      wake();
    });
    const queue: HeldItem[] = [];
    let broke: InsufficientCreditsError | undefined;
    /** Holds claimed items' credits; an item the key cannot cover goes back and stops the job. */
    const take = async (items: ClaimedItem[]): Promise<HeldItem[]> => {
      const { ready, refused, err } = await this.hold(job, key, items);
      if (err) {
        broke ??= err;
        await store.items.handBack(refused.map((i) => i.id));
        for (const i of refused) held.delete(i.id);
      }
      return ready;
    };
    if (!job.seeded) {
      const seed = await steps.seed(job.input, this.ctx(job, key, binding, `${job.id}/seed`, signal));
      const limit = steps.limit(job.input);
      // The first items are claimed as they are recorded: no claim statement before the first step.
      const first = await store.items.seed(job.id, seed, limit, steps.knownTotal ? limit : null, settings.itemConcurrency + CLAIM_AHEAD, settings.leaseSeconds);
      for (const item of first) held.add(item.id);
      queue.push(...(await take(first)));
      more = first.length < seed.length;
    }
    /** Items started and not yet recorded, and how many of them are still in their step. */
    const open = new Set<Promise<void>>();
    let stepping = 0;
    let failure: unknown;
    let yielding = false;
    let lookedAt = Date.now();
    let started = 0;
    // Stopped: no item starts. Halted: none is claimed either; a key out of credits only halts,
    // so the items whose credits are already held still run.
    const stopped = () => failure !== undefined || why() !== undefined || yielding;
    const halted = () => broke !== undefined || stopped();
    const start = (ready: HeldItem) => {
      const item = ready.item;
      started++;
      stepping++;
      let ran = false;
      const stepped = () => {
        if (ran) return;
        ran = true;
        stepping--;
        wake();
      };
      const p: Promise<void> = this.item(job, key, binding, ready, signal, why, recorder, stepped)
        .catch(async (err: unknown) => {
          await store.items.unclaim([item.id]);
          if (err instanceof InsufficientCreditsError) broke ??= err;
          else failure ??= err;
        })
        .finally(() => {
          stepped();
          held.delete(item.id);
          open.delete(p);
          wake();
        });
      open.add(p);
    };
    for (;;) {
      if (!halted()) {
        if (Date.now() >= until) yielding = true;
        else if (Date.now() - lookedAt >= WAIT_CHECK_MS) {
          lookedAt = Date.now();
          yielding = await this.d.othersWaiting();
        }
      }
      // The recorder's backlog is bounded too: a slow store slows the steps rather than piling up.
      if (!stopped()) while (queue.length > 0 && stepping < settings.itemConcurrency && open.size < settings.itemConcurrency * BACKLOG_FACTOR) start(queue.shift()!);
      if (!halted()) {
        if (queue.length === 0 && stepping < settings.itemConcurrency && more) {
          const want = settings.itemConcurrency - stepping + CLAIM_AHEAD;
          const offeredBefore = recorder.offered;
          const got = await store.items.claim(job.id, want, settings.leaseSeconds);
          for (const item of got) held.add(item.id);
          queue.push(...(await take(got)));
          if (got.length < want && recorder.offered === offeredBefore) more = false;
          if (got.length > 0) continue;
        }
      }
      if (open.size === 0) {
        // A batch recorded while the last claim ran may have offered items it did not see.
        if ((!stopped() && queue.length > 0) || (!halted() && more)) continue;
        break;
      }
      await new Promise<void>((r) => (wake = r));
    }
    if (queue.length > 0) {
      await Promise.all(queue.map((r) => r.hold > 0 && this.d.ledger.release(requestIdOf(job.id, r.item))));
      await store.items.handBack(queue.map((r) => r.item.id));
      for (const r of queue) held.delete(r.item.id);
    }
    if (failure) throw failure;
    if (broke) {
      await this.end(job.id, 'failed', { errorCode: broke.code, errorMessage: broke.message });
      return false;
    }
    const w = why();
    if (w) return w === 'stopping';
    if (recorder.completed) {
      // The last batch recorded completed the job in the same statement.
      await this.ended(job.id, 'completed', job.webhook !== null);
      return false;
    }
    // Nothing left this turn could claim: end the job at once rather than in one more turn, or
    // look again shortly when items are still leased by a runner that outlived its turn (or died).
    if (await this.completeIfDone(job)) return false;
    if (started > 0) return true;
    await this.d.requeue(job.id, 1);
    return false;
  }

  /** Completes the job when nothing is left to run (none pending, none running, or its limit reached); answers whether it did. */
  private async completeIfDone(job: JobRecord): Promise<boolean> {
    if (!(await this.d.store.finishIfDone(job.id))) return false;
    await this.ended(job.id, 'completed', job.webhook !== null);
    return true;
  }

  /**
   * Runs, prices, charges and records one item; calls `stepped` once its step has returned (the
   * next item may start). Throws `InsufficientCreditsError` when its price cannot be held.
   */
  private async item(job: JobRecord, key: KeyRecord, binding: ProviderBinding, { item, prior, hold }: HeldItem, signal: AbortSignal, why: () => Stop | undefined, recorder: ItemRecorder, stepped: () => void): Promise<void> {
    const { store, ledger } = this.d;
    const requestId = requestIdOf(job.id, item);
    const cost = this.d.registry.capability(job.target)!.def.cost;
    let out: JobStepResult;
    try {
      const limit = AbortSignal.any([signal, AbortSignal.timeout(binding.endpoint.def.timeoutMs ?? DEFAULT_ITEM_TIMEOUT_MS)]);
      out = await binding.impl.steps!.run(job.input, { key: item.key, data: item.data }, this.ctx(job, key, binding, requestId, limit));
    } catch (err) {
      stepped();
      if (hold > 0) await ledger.release(requestId);
      if (why()) {
        await store.items.unclaim([item.id]);
        return;
      }
      const e = toServiceError(err);
      const result = { key: item.key, error: { code: e.code, message: e.message } };
      if (await recorder.add({ id: item.id, status: 'failed', result, credits: 0 })) this.d.emit(job, 'job.page', result);
      return;
    }
    stepped();
    const more = out.more ?? [];
    if (out.result === undefined) {
      if (hold > 0) await ledger.release(requestId);
      await recorder.add({ id: item.id, status: 'skipped', credits: 0 }, more);
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
        if (hold > 0) await ledger.release(requestId);
        throw err;
      }
      this.lastPrice.set(job.id, price);
      credits = price;
    } else if (hold > 0) await ledger.release(requestId);
    // Charged by the recorder, with its batch, before the batch is recorded.
    const charge = credits > prior ? { requestId, amount: credits, target: job.target } : undefined;
    const recorded = await recorder.add({ id: item.id, status: out.failed === true ? 'failed' : 'done', result: out.result, credits }, more, charge);
    if (!recorded) {
      // Finished meanwhile by another runner, which charged for it, or the job was cancelled
      // meanwhile (only items recorded before count): give this charge back.
      if (credits > prior) await ledger.adjust(job.keyId, credits - prior, `job ${job.id}: item ${item.key} finished twice; the second charge is refunded`);
      return;
    }
    this.d.emit(job, 'job.page', out.result);
  }

  /**
   * Takes each claimed item's hold, all in one go (one ledger batch per claim rather than a round
   * trip before each step): what the job's last item cost, or nothing for a resumed item whose
   * earlier attempt was charged (it is not charged again). Answers the items held, and those
   * refused with the refusal when the key cannot cover them.
   */
  private async hold(job: JobRecord, key: KeyRecord, items: ClaimedItem[]): Promise<{ ready: HeldItem[]; refused: ClaimedItem[]; err?: InsufficientCreditsError }> {
    const price = this.lastPrice.get(job.id) ?? 0;
    const ready: HeldItem[] = [];
    const refused: ClaimedItem[] = [];
    let err: InsufficientCreditsError | undefined;
    await Promise.all(
      items.map(async (item) => {
        const prior = item.attempts > 1 ? await this.d.store.charged(earlierAttempts(job.id, item)) : 0;
        const hold = prior > 0 ? 0 : price;
        try {
          if (hold > 0) await this.d.ledger.reserve(key, requestIdOf(job.id, item), hold);
          ready.push({ item, prior, hold });
        } catch (e) {
          if (!(e instanceof InsufficientCreditsError)) throw e;
          err ??= e;
          refused.push(item);
        }
      }),
    );
    ready.sort((a, b) => a.item.id - b.item.id);
    return { ready, refused, err };
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
