/**
 * A stepwise job's items for one turn: up to JOB_ITEM_CONCURRENCY steps running at a time, the
 * next one started as soon as one's step returns, from items claimed a batch ahead (one statement
 * per CLAIM_AHEAD items, not one per item, sent in the background before the queue runs dry). A
 * finished item is charged and then recorded by the turn's group commit (item-recorder.ts) while
 * the next steps already run, so the store's round trips stay off the items' path. Stops claiming once none is left, another job waits in the
 * queue (looked at every WAIT_CHECK_MS), the turn's time is up or the job is stopped; items
 * claimed but not started go back, the ones started finish.
 */
import type { KeyRecord } from '../keys/types.js';
import { InsufficientCreditsError } from '../errors.js';
import type { ClaimedItem, JobRecord } from './types.js';
import type { HeldItem, RunnerDeps, Stop } from './runner-deps.js';
import type { JobEnds } from './job-ends.js';
import type { ItemHolds } from './item-holds.js';
import { ItemRecorder } from './item-recorder.js';
import { runItem, type ItemStepEnv } from './item-step.js';
import { requestIdOf } from './request-ids.js';
import { stepBinding, stepContext } from './step-context.js';

/** How often a turn looks whether another job waits for a worker. */
const WAIT_CHECK_MS = 200;

/** Items a turn claims beyond its free steps, so a claim is one statement per batch of items. */
const CLAIM_AHEAD = 16;

/** Items left in the queue, per step slot, when the next claim is sent. */
const LOW_WATER_FACTOR = 2;

/** Items started and not yet recorded, per step slot: how far the records may lag the steps. */
const BACKLOG_FACTOR = 8;

/** Finished items per step slot that make a record batch worth writing at once. */
const RECORD_BATCH_FACTOR = 4;

/** Longest a finished item waits for others to share its record statement, in ms. */
const RECORD_LINGER_MS = 100;

/** What a stepwise turn needs besides the job itself. */
export interface ItemTurnEnv {
  d: RunnerDeps;
  ends: JobEnds;
  holds: ItemHolds;
  signal: AbortSignal;
  /** Item ids this turn holds a claim on (its heartbeat renews their leases). */
  held: Set<number>;
  why: () => Stop | undefined;
  /** When the turn stops claiming (ms since the epoch). */
  until: number;
}

/** Runs the job's items for one turn; answers whether to queue the job again. */
export async function runItems(t: ItemTurnEnv, job: JobRecord, key: KeyRecord): Promise<boolean> {
  const { d, ends, held, why, until } = t;
  const { store, settings } = d;
  const binding = stepBinding(d.registry, job);
  const steps = binding.impl.steps!;
  /** False once a claim found fewer than it asked and no batch has offered new items since. */
  let more = true;
  let wake = () => {};
  // Set below, once the turn's state exists: whether the turn waits on the recorder's items.
  let urgent = () => true;
  const recorder = new ItemRecorder(
    store.items,
    d.ledger,
    job,
    () => {
      more = true;
      wake();
    },
    { batchSize: settings.itemConcurrency * RECORD_BATCH_FACTOR, lingerMs: RECORD_LINGER_MS, urgent: () => urgent(), cancelled: () => why() === 'cancelled' },
  );
  const stepEnv: ItemStepEnv = { d, holds: t.holds, job, key, binding, signal: t.signal, why, recorder };
  const queue: HeldItem[] = [];
  let broke: InsufficientCreditsError | undefined;
  /** Holds claimed items' credits; an item the key cannot cover goes back and stops the job. */
  const take = async (items: ClaimedItem[]): Promise<HeldItem[]> => {
    const { ready, refused, err } = await t.holds.hold(job, key, items);
    if (err) {
      broke ??= err;
      await store.items.handBack(refused.map((i) => i.id));
      for (const i of refused) held.delete(i.id);
    }
    return ready;
  };
  if (!job.seeded) {
    const seed = await steps.seed(job.input, stepContext(d, job, key, binding, `${job.id}/seed`, t.signal));
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
  const backlogFull = () => open.size >= settings.itemConcurrency * BACKLOG_FACTOR;
  // The records are what the turn waits for when it is ending, when the backlog is full, or when
  // nothing is left to start until the waiting items offer the links they found.
  urgent = () => halted() || backlogFull() || (queue.length === 0 && !more);
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
    const p: Promise<void> = runItem(stepEnv, ready, stepped)
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
  let claiming = false;
  let looking = false;
  /**
   * Claims the next items in the background while the queue still holds some, so the steps keep
   * starting from it during the claim's round trip (on the embedded store, one statement waits
   * for the statements sent before it).
   */
  const claimMore = () => {
    claiming = true;
    const want = settings.itemConcurrency + CLAIM_AHEAD - queue.length;
    const offeredBefore = recorder.offered;
    void store.items
      .claim(job.id, want, settings.leaseSeconds)
      .then(async (got) => {
        for (const item of got) held.add(item.id);
        queue.push(...(await take(got)));
        if (got.length < want && recorder.offered === offeredBefore) more = false;
      })
      .catch((err: unknown) => {
        failure ??= err;
      })
      .finally(() => {
        claiming = false;
        wake();
      });
  };
  /** Looks in the background whether another job waits for a worker (then this turn yields). */
  const lookAtQueue = () => {
    looking = true;
    lookedAt = Date.now();
    d.othersWaiting()
      .then(
        (others) => {
          if (others) yielding = true;
        },
        (err: unknown) => {
          failure ??= err;
        },
      )
      .finally(() => {
        looking = false;
        wake();
      });
  };
  for (;;) {
    if (!halted()) {
      if (Date.now() >= until) yielding = true;
      else if (!looking && Date.now() - lookedAt >= WAIT_CHECK_MS) lookAtQueue();
    }
    // The recorder's backlog is bounded too: a slow store slows the steps rather than piling up.
    if (!stopped()) while (queue.length > 0 && stepping < settings.itemConcurrency && !backlogFull()) start(queue.shift()!);
    if (!halted() && !claiming && more && queue.length < settings.itemConcurrency * LOW_WATER_FACTOR) claimMore();
    if (open.size === 0 && !claiming && !looking) {
      // A batch recorded while the last claim ran may have offered items it did not see.
      if ((!stopped() && queue.length > 0) || (!halted() && more)) continue;
      break;
    }
    // Finished items the turn now waits on are written without lingering.
    recorder.kick();
    await new Promise<void>((r) => (wake = r));
  }
  if (queue.length > 0) {
    await Promise.all(queue.map((r) => r.hold > 0 && d.ledger.release(requestIdOf(job.id, r.item))));
    await store.items.handBack(queue.map((r) => r.item.id));
    for (const r of queue) held.delete(r.item.id);
  }
  if (failure) throw failure;
  if (broke) {
    await ends.end(job.id, 'failed', { errorCode: broke.code, errorMessage: broke.message });
    return false;
  }
  const w = why();
  if (w) return w === 'stopping';
  if (recorder.completed) {
    // The last batch recorded completed the job in the same statement.
    await ends.ended(job.id, 'completed', job.webhook !== null);
    return false;
  }
  // Nothing left this turn could claim: end the job at once rather than in one more turn, or
  // look again shortly when items are still leased by a runner that outlived its turn (or died).
  if (await ends.completeIfDone(job.id, job.webhook !== null)) return false;
  if (started > 0) return true;
  await d.requeue(job.id, 1);
  return false;
}
