/**
 * The compute engine: a small pool of worker threads for CPU-bound plugin work (HTML parsing,
 * markdown, main-content extraction), so one large page never stalls every other request on the
 * instance. A call that overruns its time, is aborted or exhausts its worker's heap costs that
 * worker, which is replaced; the service goes on.
 */
import type { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { EngineOptions } from '../options.js';
import type { ComputeEngine, ComputeOptions, ComputeStats, ComputeWork } from './types.js';
import type { ComputeMessage, ComputeReply } from './worker.js';
import { BusyError, UpstreamError } from '../../errors.js';
import { intOr } from '../../util/int-setting.js';
import { FairQueue } from '../../util/fair-queue.js';
import { fairNice } from '../tools/priority.js';
import { FROM_SOURCES, bundlesForWorkers, startWorker, workerModuleUrl } from '../../util/worker-bundle.js';

interface Job {
  /** The API key the work is for; calls without one share one owner (first come, first served). */
  owner: string;
  call: Extract<ComputeMessage, { kind: 'call' }>;
  transfer?: ArrayBuffer[];
  timeoutMs: number;
  signal?: AbortSignal;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Nice levels the worker runs below the serving thread (as it last said). */
  nice: number;
  job?: Job;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
}

/** A registered module: the number calls name it by, and the URL its plugin gave. */
interface Registered {
  module: number;
  url: string;
  /** What the workers import (worker-bundle.ts); unset while it is being bundled. */
  workerUrl?: string;
  handle: ComputeWork<unknown>;
}

const QUEUE_MAX = 256;
/** Calls one key may have waiting: a flood from one key fills its own part of the queue, not everyone's. */
const OWNER_QUEUE_MAX = QUEUE_MAX / 4;

/**
 * The URL of a work module. Only absolute URLs: a relative path would be resolved against this
 * engine's folder, which knows nothing of the plugin that wrote it.
 */
function moduleUrl(module: URL | string): string {
  try {
    return new URL(module).href;
  } catch {
    throw new TypeError(`compute: a work module is named by an absolute URL, e.g. new URL('./work.js', import.meta.url); got ${JSON.stringify(String(module))}`);
  }
}

/** The pool behind {@link ComputeEngine}. */
class ComputePool implements ComputeEngine {
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Job>();
  /** Calls waiting per owner (the per-owner cap). */
  private readonly waitingOf = new Map<string, number>();
  private readonly modules = new Map<string, Registered>();
  private nextId = 1;
  private closed = false;
  /** Counted where each happens: calls ended by a worker, workers killed for a call, workers that died. */
  private readonly counts = { jobs: 0, kills: 0, crashes: 0 };

  constructor(
    private readonly size: number,
    private readonly timeoutMs: number,
    private readonly memoryMb: number,
    private readonly log: EngineOptions['log'],
    /** The workers' nice value (COMPUTE_NICE): how readily they yield a core to the serving thread. */
    private readonly nice = 0,
    /** How much lower each further call of a key running at once runs (COMPUTE_NICE_STEP). */
    private readonly niceStep = 0,
  ) {}

  register<M>(module: URL | string): ComputeWork<M> {
    const url = moduleUrl(module);
    let reg = this.modules.get(url);
    if (!reg) {
      const n = this.modules.size + 1;
      const handle: ComputeWork<unknown> = { url, run: (fn, arg, opts) => this.call(n, fn, arg, opts) as never };
      const registered: Registered = { module: n, url, handle };
      reg = registered;
      this.modules.set(url, reg);
      if (bundlesForWorkers(url)) {
        // From sources: the workers import the module's bundle. Its calls wait for it; this
        // continuation runs before theirs (attached first), so each ready worker is told to load
        // the module before any call to it is dispatched.
        const bundled = workerModuleUrl(url).then((workerUrl) => {
          registered.workerUrl = workerUrl;
          for (const slot of this.slots) if (slot.ready) this.load(slot, registered);
        });
        bundled.catch(() => undefined); // Each call reports a failed bundle; an unused module does not crash the process.
        handle.run = (fn, arg, opts) => bundled.then(() => this.call(n, fn, arg, opts)) as never;
      } else {
        reg.workerUrl = url;
        for (const slot of this.slots) if (slot.ready) this.load(slot, reg);
      }
    }
    return reg.handle as ComputeWork<M>;
  }

  private call(module: number, fn: string, arg: unknown, opts: ComputeOptions = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(new BusyError('The service is shutting down.'));
    if (opts.signal?.aborted) return Promise.reject(opts.signal.reason);
    const owner = opts.owner ?? '';
    // Calls without an owner (a plugin's own work) keep the whole queue, as before owners existed.
    if (this.queue.length >= QUEUE_MAX || (owner !== '' && (this.waitingOf.get(owner) ?? 0) >= OWNER_QUEUE_MAX)) return Promise.reject(new BusyError('The service is busy processing pages. Please try again later.'));
    return new Promise((resolve, reject) => {
      const call = { kind: 'call' as const, id: this.nextId++, module, fn, arg, transferResult: opts.transferResult === true };
      const job: Job = { owner, call, transfer: opts.transfer, timeoutMs: opts.timeoutMs ?? this.timeoutMs, signal: opts.signal, resolve, reject };
      if (job.signal) {
        const onQueuedAbort = () => {
          if (this.queue.remove(job)) {
            this.unwait(owner);
            reject(job.signal!.reason);
          }
        };
        job.signal.addEventListener('abort', onQueuedAbort, { once: true });
      }
      this.queue.push(job);
      this.waitingOf.set(owner, (this.waitingOf.get(owner) ?? 0) + 1);
      this.grow();
      this.dispatch();
    });
  }

  /** One call of `owner` left the queue. */
  private unwait(owner: string): void {
    const n = (this.waitingOf.get(owner) ?? 1) - 1;
    if (n > 0) this.waitingOf.set(owner, n);
    else this.waitingOf.delete(owner);
  }

  /** Starts workers up to the pool size (lazily: a deployment that never parses a page starts none). */
  private grow(): void {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    // From sources the worker runs a bundle of worker.ts, without a TypeScript loader (worker-bundle.ts).
    const worker = startWorker(new URL(`./worker${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url), { workerData: { nice: this.nice }, resourceLimits: { maxOldGenerationSizeMb: this.memoryMb } });
    const slot: Slot = { worker, ready: false, nice: this.nice };
    worker.on('message', (reply: ComputeReply) => {
      if (reply.nice !== undefined) slot.nice = reply.nice;
      if (reply.id === 0) {
        slot.ready = true;
        // A module still being bundled is loaded here when its bundle is done (see register).
        for (const reg of this.modules.values()) if (reg.workerUrl !== undefined) this.load(slot, reg);
        return this.dispatch();
      }
      const job = slot.job;
      if (!job || job.call.id !== reply.id) return;
      this.counts.jobs++;
      this.release(slot);
      if (reply.error) job.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }));
      else job.resolve(reply.value);
      // It could not be raised back for this call (no CAP_SYS_NICE), so it would serve every later
      // call, another key's first one included, at a flood's priority: a fresh worker takes its place.
      if (reply.raiseRefused) this.replace(slot, undefined);
      else this.dispatch();
    });
    worker.on('error', (err) => this.fail(slot, err));
    worker.on('exit', (code) => this.fail(slot, new Error(`compute worker exited (${code})`)));
    return slot;
  }

  /**
   * Has a worker import a registered module before any call to it (messages arrive in order), so
   * a worker that joins under load (or replaces one) does not spend its first call loading parsers.
   */
  private load(slot: Slot, reg: Registered): void {
    slot.worker.postMessage({ kind: 'load', module: reg.module, url: reg.workerUrl!, name: reg.url } satisfies ComputeMessage);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.slots.filter((s) => s.ready && !s.job);
      if (idle.length === 0) return;
      const job = this.queue.take()!;
      this.unwait(job.owner);
      // The call's priority by its key's calls running now, this one included (the queue counts
      // them): a key's first runs at COMPUTE_NICE, each further one a step lower, so one key's flood
      // of large bodies sinks below the serving thread and below another key's single call (issue
      // 24: at one fixed nice a flood's further calls weighed as much as another key's only one).
      const nice = fairNice(this.nice, this.niceStep, this.queue.held(job.owner) - 1);
      const slot = this.closest(idle, nice);
      slot.job = job;
      slot.timer = setTimeout(() => this.kill(slot, new UpstreamError(`The content could not be processed within ${Math.round(job.timeoutMs / 1000)} s.`)), job.timeoutMs);
      if (job.signal) {
        slot.onAbort = () => this.kill(slot, job.signal!.reason);
        job.signal.addEventListener('abort', slot.onAbort, { once: true });
      }
      slot.worker.postMessage({ ...job.call, nice }, job.transfer ?? []);
    }
  }

  /**
   * The idle worker to run a call at `nice`: one already there, else the one nearest above it (a
   * thread may always be lowered), else the lowest (raising it back needs CAP_SYS_NICE; a worker
   * refused that is replaced after the call).
   */
  private closest(idle: Slot[], nice: number): Slot {
    const atOrAbove = idle.filter((s) => s.nice <= nice);
    if (atOrAbove.length > 0) return atOrAbove.reduce((best, s) => (s.nice > best.nice ? s : best));
    return idle.reduce((best, s) => (s.nice < best.nice ? s : best));
  }

  private release(slot: Slot): void {
    clearTimeout(slot.timer);
    if (slot.job) this.queue.done(slot.job.owner);
    if (slot.onAbort) slot.job?.signal?.removeEventListener('abort', slot.onAbort);
    slot.job = undefined;
    slot.onAbort = undefined;
  }

  /** Its call overran its time or was aborted: the worker is killed and replaced. */
  private kill(slot: Slot, err: unknown): void {
    if (this.slots.includes(slot)) this.counts.kills++;
    this.replace(slot, err);
  }

  /** Ends a slot's work with `err` and puts a fresh worker in its place. */
  private replace(slot: Slot, err: unknown): void {
    const job = slot.job;
    if (job && !this.closed) this.counts.jobs++;
    this.release(slot);
    job?.reject(err);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    slot.worker.removeAllListeners();
    void slot.worker.terminate();
    if (this.closed) return;
    this.grow();
    this.dispatch();
  }

  /** A worker died on its own (out of memory, a crash). */
  private fail(slot: Slot, err: Error): void {
    if (!this.slots.includes(slot)) return;
    if (!this.closed) {
      this.counts.crashes++;
      this.log.warn({ err: err.message }, 'compute worker stopped; replacing it');
    }
    const outOfMemory = (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
    this.replace(slot, outOfMemory ? new UpstreamError('The content is too large to process.', { cause: err }) : new UpstreamError('Processing the content failed.', { cause: err }));
  }

  /** Counters since start; reading them starts no worker. */
  stats(): ComputeStats {
    return {
      queued: this.queue.length,
      active: this.slots.filter((s) => s.job).length,
      workers: this.slots.length,
      ...this.counts,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waitingOf.clear();
    for (const job of this.queue.drain()) job.reject(new BusyError('The service is shutting down.'));
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      const job = slot.job;
      this.release(slot);
      job?.reject(new BusyError('The service is shutting down.'));
      slot.worker.removeAllListeners();
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}

/** Creates the compute pool (`COMPUTE_WORKERS`, `COMPUTE_TIMEOUT_MS`, `COMPUTE_MEMORY_MB`, `COMPUTE_NICE`, `COMPUTE_NICE_STEP`). */
export function createComputeEngine(opts: EngineOptions): ComputeEngine & { close(): Promise<void> } {
  const env = opts.env;
  const dflt = Math.max(1, Math.min(4, availableParallelism()));
  const nice = Math.min(19, intOr(env, 'COMPUTE_NICE', 5, 0));
  const niceStep = Math.min(19, intOr(env, 'COMPUTE_NICE_STEP', 3, 0));
  return new ComputePool(intOr(env, 'COMPUTE_WORKERS', dflt), intOr(env, 'COMPUTE_TIMEOUT_MS', 30_000, 100), intOr(env, 'COMPUTE_MEMORY_MB', 1024, 64), opts.log, nice, niceStep);
}
