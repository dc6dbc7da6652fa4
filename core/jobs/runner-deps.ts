/**
 * What a job turn needs from the service, and the small shapes the turn's parts (runner.ts,
 * single-call.ts, item-turn.ts, item-step.ts) pass between them.
 */
import type { Logger } from 'pino';
import type { Executor } from '../execution/executor.js';
import type { Ledger } from '../credits/ledger.js';
import type { KeyStore } from '../keys/key-store.js';
import type { Registry } from '../registry/registry.js';
import type { Engines } from '../engines/types.js';
import type { JobStore } from './store.js';
import type { JobSettings } from './settings.js';
import type { ClaimedItem, JobRecord } from './types.js';
import type { JobEventDelivery } from './webhooks.js';

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
export type Stop = 'cancelled' | 'stopping';

/** A claimed item with its hold taken: `prior` is what an earlier attempt was charged (then nothing is held). */
export interface HeldItem {
  item: ClaimedItem;
  prior: number;
  hold: number;
}
