/**
 * Sandbox engine contracts (spec §4.8, owned by the code lane). Types only: plugins see these
 * as `ctx.engines.js` and `ctx.engines.python`.
 */

/** The error object of a failed run (spec §2.2, §4.8), modelled on E2B's `{ name, value, traceback }`. */
export interface ExecutionErrorInfo {
  /** Exception type, e.g. `ReferenceError`, `ZeroDivisionError`, `TimeoutError`, `MemoryLimitError`. */
  name: string;
  /** The exception message. */
  value: string;
  /** Stack or traceback text, without ANSI colours. */
  traceback: string;
}

/** The limits a run had: what it asked for, within the engine's caps (issue 19, item 2). */
export interface AppliedLimits {
  /** Wall-clock limit of the code, ms. */
  timeoutMs: number;
  /** Memory of the run, MB (the isolate's heap in JavaScript, the run's memory in Python). */
  memoryMb: number;
}

/** A file the code left in its working directory (runs with `saveFiles`). */
export interface SandboxFile {
  /** Its path below the working directory, each part reduced to `[A-Za-z0-9._-]`. */
  name: string;
  data: Uint8Array;
}

/** What a run printed, line by line, and how it ended. */
export interface SandboxResult {
  stdout: string[];
  stderr: string[];
  /** True when a stream went over the line or byte cap; the stream then ends with a note line. */
  truncated: boolean;
  /** Set when the code threw, did not compile, timed out or ran out of memory. */
  error?: ExecutionErrorInfo;
  /** Wall time of the code itself (ms), without `commands`. */
  durationMs: number;
  /** The limits the run had (set by the engines' `run`). */
  limits?: AppliedLimits;
  /** With `saveFiles`: the files the code wrote or changed in its working directory, by name. */
  files?: SandboxFile[];
  /** With `saveFiles`: files left out because the run's file caps were reached. */
  filesOmitted?: number;
}

/** Outcome of the `commands` step, run before the code in its own sandbox. */
export interface CommandsFailure {
  /** Exit status, or null when killed. */
  exitCode: number | null;
  output: string;
  timedOut: boolean;
}

/** A request a sandboxed `fetch` makes; the caller decides how to serve it (SSRF guard, limits). */
export interface SandboxFetchRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** Request body bytes, if any. */
  body?: Uint8Array;
}

/** The answer handed back to the sandboxed `fetch`. */
export interface SandboxFetchResponse {
  status: number;
  statusText: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** One run request. */
export interface SandboxRunRequest {
  code: string;
  /** Shell step run first in an OS sandbox with network, e.g. `npm install lodash` (spec §4.8). */
  commands?: string;
  /**
   * Wall-clock limit of the code (default and most `SANDBOX_TIMEOUT_MS`, 10 s, spec §8.2; least
   * 100 ms): a value outside is moved to the nearest bound, and `limits` in the result says so.
   */
  timeoutMs?: number;
  /**
   * Memory of the run in MB (default and most the engine's `SANDBOX_*_MEMORY_MB`; least 8 MB for
   * an isolate, 32 MB for Python), moved into those bounds like `timeoutMs`.
   */
  memoryMb?: number;
  /**
   * Hand back the files the code writes in its working directory (`files` of the result): at most
   * `maxFiles`, and no more bytes than the run's work dir holds (`SANDBOX_TMPFS_MB`). JavaScript
   * code has no file system, so its runs never have any.
   */
  saveFiles?: { maxFiles: number };
  /** Aborts the run (the client went away or the server is stopping). */
  signal?: AbortSignal;
  /**
   * Whom the run is for (the calling API key's id): each further run of an owner going at once is
   * scheduled lower (`CODE_NICE_STEP`), and JavaScript workers are shared fairly between owners
   * (issue 18, item 9). Runs without one share a single owner.
   */
  owner?: string;
}

/** A JavaScript run: as above plus the `fetch` bridge. */
export interface JsRunRequest extends SandboxRunRequest {
  /**
   * Serves the code's `fetch()` calls. Without it `fetch` rejects. The plugin passes one that goes
   * through the HTTP engine's SSRF guard with size and time limits (spec §4.8, issue 6).
   */
  fetch?(req: SandboxFetchRequest, signal: AbortSignal): Promise<SandboxFetchResponse>;
}

/** Counters of the JavaScript pool since the engine started (metrics, tests). */
export interface JsSandboxStats {
  /** Runs waiting for a worker, or for a slot to run their `commands` step in. */
  queued: number;
  /** Runs a worker is serving now. */
  active: number;
  /** Worker processes alive (starting, idle or busy), surge workers included. */
  workers: number;
  /** Runs a worker finished, whatever their outcome (code errors, timeouts and crashes included). */
  jobs: number;
  /** Workers stopped on purpose after `SANDBOX_JS_RECYCLE_AFTER` runs. */
  recycles: number;
  /** Workers the pool killed because their run overran its time, was aborted or lost its channel. */
  kills: number;
  /** Workers that exited on their own (a V8 abort, out of memory, a failed start). */
  crashes: number;
}

/** Counters of the Python sandbox since the engine started (metrics, tests). */
export interface PythonSandboxStats {
  /** Runs waiting for a free slot (`SANDBOX_MAX_CONCURRENT`). */
  queued: number;
  /** Runs holding a slot now (their `commands` step or their code). */
  active: number;
  /** Sandboxes started ahead of runs and waiting for code. */
  prestarted: number;
  /** Slots: the most runs (and `commands` steps) at once. */
  slots: number;
  /** Runs whose code was driven in a sandbox to its end, whatever the outcome. */
  jobs: number;
  /** Pre-started sandboxes that exited before a run came to them. */
  crashes: number;
}

/**
 * JavaScript sandbox: isolated-vm isolates in a pool of forked worker processes, one fresh
 * isolate per run, so a V8 crash costs one worker and never the service.
 */
export interface JsSandbox {
  readonly kind: 'js';
  /**
   * Runs the code. Resolves with the result (including code errors in `error`); rejects with a
   * catalogue error only for service-side problems (queue full, `commands` failure, shutdown).
   */
  run(req: JsRunRequest): Promise<SandboxResult>;
  /** Pool counters (for metrics and tests). */
  stats(): JsSandboxStats;
}

/** Python sandbox: `/usr/bin/python3` under bubblewrap as an unprivileged uid, one sandbox per run. */
export interface PythonSandbox {
  readonly kind: 'python';
  /** Runs the code; same contract as {@link JsSandbox.run}. */
  run(req: SandboxRunRequest): Promise<SandboxResult>;
  /** Sandbox counters (for metrics and tests). */
  stats(): PythonSandboxStats;
}
