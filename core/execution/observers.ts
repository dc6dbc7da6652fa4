/**
 * Who may watch the executor (issue 29: metrics used to replace `executor.execute` at boot). An
 * observer hears each top-level call start and finish; what it does cannot change the call, and
 * an observer that throws is ignored.
 */
import type { ServiceError } from '../errors.js';
import type { ExecuteRequest, ExecuteResult } from './request.js';

/** How a call ended: its result, or its error and the last provider it tried (none when admission refused it). */
export type FinishedCall =
  | { req: ExecuteRequest; result: ExecuteResult; error?: undefined; provider: string | null }
  | { req: ExecuteRequest; result?: undefined; error: ServiceError; provider: string | undefined };

/** Hooks told of every `execute` (nested `ctx.call` runs are part of their caller's call). */
export interface ExecutionObserver {
  /** The call was handed to the executor, before admission. */
  started?(req: ExecuteRequest): void;
  /** The call's credits are settled or released and its answer is ready. */
  finished?(call: FinishedCall): void;
}

/** The observers of one executor. */
export class Observers {
  private readonly list = new Set<ExecutionObserver>();
  /** Those with a `started` hook, kept apart so a call with none of them loops over nothing. */
  private starters: ExecutionObserver[] = [];

  /** True when someone listens (the executor skips the bookkeeping otherwise). */
  get any(): boolean {
    return this.list.size > 0;
  }

  /** Adds `o`; returns its removal. */
  add(o: ExecutionObserver): () => void {
    this.list.add(o);
    this.starters = [...this.list].filter((x) => x.started);
    return () => {
      this.list.delete(o);
      this.starters = [...this.list].filter((x) => x.started);
    };
  }

  /** Tells every observer that `req` starts. */
  started(req: ExecuteRequest): void {
    for (const o of this.starters) {
      try {
        o.started!(req);
      } catch {
        // A watcher's fault must not fail the call it watches.
      }
    }
  }

  /** Tells every observer how a call ended. */
  finished(call: FinishedCall): void {
    for (const o of this.list) {
      try {
        o.finished?.(call);
      } catch {
        // A watcher's fault must not fail the call it watches.
      }
    }
  }
}
