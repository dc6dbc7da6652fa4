/** CPU-bound work off the thread that serves HTTP. */

/** Options of one piece of work. */
export interface ComputeOptions {
  /** Gives up (and replaces the worker) when this fires. */
  signal?: AbortSignal;
  /** Longest the work may take, ms (default `COMPUTE_TIMEOUT_MS`); past it the worker is replaced and the call fails with a 502. */
  timeoutMs?: number;
}

/**
 * Runs a plugin's pure function in a pool of worker threads: parsing a 10 MB page takes seconds of
 * CPU, and on the main thread every other caller would wait for it. Arguments and results are
 * structured-cloned (plain data only).
 */
export interface ComputeEngine {
  /**
   * Calls export `fn` of the module at `module` (a file URL, e.g.
   * `new URL('./page-work.js', import.meta.url)`) with `arg` in a worker thread.
   */
  run<T>(module: URL | string, fn: string, arg: unknown, opts?: ComputeOptions): Promise<T>;
}
