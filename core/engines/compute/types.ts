/**
 * CPU-bound work off the thread that serves HTTP. The engine never decides which code it runs: a
 * plugin registers a module of its own (named by an absolute URL the plugin resolves itself,
 * e.g. `new URL('./page-work.js', import.meta.url)`), and calls that module's exports by name.
 */

/** Options of one piece of work. */
export interface ComputeOptions {
  /** Gives up (and replaces the worker) when this fires. */
  signal?: AbortSignal;
  /** Longest the work may take, ms (default `COMPUTE_TIMEOUT_MS`); past it the worker is replaced and the call fails with a 502. */
  timeoutMs?: number;
  /**
   * Whom the work is for (an API key's id): waiting calls are served owner by owner, so one key's
   * backlog delays another key's first call by at most one call (issue 24 "fair gates").
   */
  owner?: string;
  /** Buffers of the argument moved into the worker instead of copied (they are unusable here afterwards). */
  transfer?: ArrayBuffer[];
  /**
   * Moves the buffers of the result's byte arrays (the result, its properties and their items) back
   * instead of copying them; only for work
   * that returns arrays it made for this call (never a cached one: it would be emptied).
   */
  transferResult?: boolean;
}

/** The exports of module type `M` that can run as work: functions of at most one argument. */
export type WorkName<M> = {
  [K in keyof M]: M[K] extends (arg: never) => unknown ? (K extends string ? K : never) : never;
}[keyof M];

/** The argument of work function `F` (structured-cloned into the worker: plain data only). */
export type WorkArg<F> = F extends (arg: infer A) => unknown ? A : never;

/** What work function `F` resolves to (structured-cloned back: plain data only). */
export type WorkResult<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;

/**
 * A registered work module. `M` is the module's type (`typeof import('./page-work.js')`), so a
 * wrong function name, argument or result type fails the type check.
 */
export interface ComputeWork<M> {
  /** The module's URL as registered. */
  readonly url: string;
  /** Calls export `fn` with `arg` in a worker thread. */
  run<K extends WorkName<M>>(fn: K, arg: WorkArg<M[K]>, opts?: ComputeOptions): Promise<WorkResult<M[K]>>;
}

/** Counters of the compute pool since the engine started (metrics, tests). */
export interface ComputeStats {
  /** Calls waiting for a worker. */
  queued: number;
  /** Calls a worker is running now. */
  active: number;
  /** Worker threads alive (starting or ready); none before the first call. */
  workers: number;
  /** Calls a worker took and ended: answered, failed, timed out or aborted. */
  jobs: number;
  /** Workers replaced because their call overran its time or was aborted. */
  kills: number;
  /** Workers that died on their own (out of memory, a crash) and were replaced. */
  crashes: number;
}

/**
 * A pool of worker threads for a plugin's pure functions: parsing a 10 MB page takes seconds of
 * CPU, and on the main thread every other caller would wait for it. A call that overruns its
 * time, is aborted or exhausts its worker's heap costs that worker, which is replaced.
 */
export interface ComputeEngine {
  /**
   * Registers the work module at `module`, an absolute URL (a `file:` URL made with
   * `new URL('./work.js', import.meta.url)`, or `import.meta.resolve('some-package/work')`): the
   * engine resolves nothing against its own location. Registering the same URL again returns the
   * same handle. Workers import registered modules as they start, so call it from `setup`.
   */
  register<M>(module: URL | string): ComputeWork<M>;
  /** Pool counters (for metrics and tests). */
  stats(): ComputeStats;
}
