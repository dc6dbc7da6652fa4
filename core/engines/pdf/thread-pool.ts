/**
 * Worker threads that parse and merge user PDFs (issue 24, finding 2: pdf-lib inflating a 1 GB
 * object stream froze the event loop for 27 s and kept 1.3 GB). Each thread has a heap cap
 * (`resourceLimits`) and a decode cap (decode-cap.ts); each job a time limit from when a thread
 * takes it. A job that overruns, exhausts its heap or is abandoned by its caller costs its
 * thread, which is terminated (its memory goes with it) and replaced on demand. Waiting jobs are
 * served in turns across callers' keys, like the office pool. A tool a job needs runs here, on
 * the job's tool engine, and is killed when the job ends in any way (tool-relay.ts).
 */
import type { Worker, WorkerOptions } from 'node:worker_threads';
import { FROM_SOURCES, startWorker } from '../../util/worker-bundle.js';
import { BusyError, InputError, OperationFailedError } from '../../errors.js';
import { FairQueue } from '../../util/fair-queue.js';
import type { PdfJobs } from './jobs.js';
import type { PdfThreadReply, PdfThreadRequest } from './thread.js';
import type { ToolEngine } from '../tools/types.js';
import { runTool } from './tools.js';
import { isToolCall, type ToolAnswer, type ToolCall } from './tool-relay.js';

/** Settings of the PDF threads. */
export interface PdfThreadSettings {
  threads: number;
  queueLimit: number;
  timeoutMs: number;
  memoryMb: number;
  decodeLimitBytes: number;
  /**
   * Nice levels the threads run below the one that starts them (COMPUTE_NICE): parsing an
   * attacker's files yields a busy core to the serving thread. 0 or unset: the same level.
   */
  nice?: number;
  /** How long an idle surge thread is kept for the next job of a waiting key (default 30 s). */
  surgeIdleMs?: number;
  /** How long a thread that has refused a file is kept once idle (default 2 s; see `spent`). */
  spentIdleMs?: number;
}

/** Who a job is for, when its caller stops waiting, and the tool engine its tools run on. */
export interface JobContext {
  signal?: AbortSignal;
  owner?: string;
  /** The instance's tool engine (`ctx.engines.tools`); the process-wide one when absent. */
  tools?: ToolEngine;
}

interface Job {
  owner: string;
  request: PdfThreadRequest;
  signal?: AbortSignal;
  tools?: ToolEngine;
  /**
   * Aborted when the job ends in any way (answered, hung up, over its time, its thread dead, the
   * pool closed): the tools run for it (tool-relay.ts) are killed then, not left to their own limits.
   */
  ended: AbortController;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  /** Started beside the setting's threads for a key waiting below its share (see grow). */
  surge: boolean;
  /** Ends an idle surge thread (see shrink). */
  idleTimer?: NodeJS.Timeout;
  /**
   * It has refused a file. What the refusal decoded (up to `PDF_MAX_DECODED_MB` of a bomb's
   * streams, in pieces outside the V8 heap) stays garbage the idle thread never collects: two
   * threads held 150 MB after 20 refused bombs, still 10 s later. So such a thread ends once it
   * has been idle a moment, and its memory goes with it; while jobs keep coming it serves them.
   */
  spent?: boolean;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

/** The pool behind the PDF engine's pdf-lib work. */
export class PdfThreadPool {
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Job>();
  private nextId = 1;
  private closed = false;

  /** `makeWorker`: how a thread is started (tests give a fake one to decide when each job ends). */
  constructor(
    private readonly cfg: PdfThreadSettings,
    private readonly log: { warn(o: object, m?: string): void },
    private readonly makeWorker: (entry: URL, options: WorkerOptions) => Worker = startWorker,
  ) {}

  /** Runs `op` in a thread; rejects with the caller's abort reason, a 400 or a 500 (see the module comment). */
  run<K extends keyof PdfJobs>(op: K, arg: Parameters<PdfJobs[K]>[0], ctx: JobContext = {}): ReturnType<PdfJobs[K]> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new OperationFailedError('The PDF engine is shutting down.'));
      if (ctx.signal?.aborted) return reject(ctx.signal.reason);
      if (this.queue.length >= this.cfg.queueLimit) return reject(new BusyError('The PDF engine is busy: too many PDF jobs are waiting. Please retry shortly.'));
      const job: Job = { owner: ctx.owner ?? '', request: { id: this.nextId++, op, arg }, signal: ctx.signal, tools: ctx.tools, ended: new AbortController(), resolve, reject };
      if (job.signal) {
        job.onAbort = () => {
          if (this.queue.remove(job)) return job.reject(job.signal!.reason);
          const slot = this.slots.find((s) => s.job === job);
          if (slot) this.kill(slot, job.signal!.reason);
        };
        job.signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.grow();
      this.dispatch();
    }) as ReturnType<PdfJobs[K]>;
  }

  /**
   * Starts threads (lazily) while more jobs wait than threads are free, up to the setting; past
   * it, one surge thread for each key that waits below its fair share while another key holds
   * more than its own (up to as many again as the setting). Issue 24: two PDF bombs of one key
   * held both threads for seconds, and another key's one-page merge waited for them to end.
   */
  private grow(): void {
    const count = (surge: boolean) => this.slots.filter((s) => s.surge === surge).length;
    const idle = (surge: boolean) => this.slots.filter((s) => s.surge === surge && !s.job).length;
    while (count(false) < this.cfg.threads && this.queue.length > idle(false)) this.slots.push(this.spawn(false));
    const starved = this.queue.starved(this.cfg.threads);
    while (count(true) < this.cfg.threads && starved > idle(true)) this.slots.push(this.spawn(true));
  }

  /**
   * A surge thread with nothing to do ends after SURGE idle time, so the pool returns to its
   * setting; kept meanwhile, because starting a thread (loading pdf-lib) costs more than a small
   * job, and the waiting key's next job would otherwise pay it again.
   */
  private shrink(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    if ((!slot.surge && !slot.spent) || slot.job) return;
    const idleMs = slot.spent ? Math.min(this.cfg.spentIdleMs ?? 2000, this.cfg.surgeIdleMs ?? 30_000) : (this.cfg.surgeIdleMs ?? 30_000);
    slot.idleTimer = setTimeout(() => {
      if (!slot.job && this.slots.includes(slot)) this.drop(slot);
    }, idleMs);
    slot.idleTimer.unref();
  }

  private spawn(surge: boolean): Slot {
    // From sources the thread runs a bundle of thread.ts, without a TypeScript loader (worker-bundle.ts).
    const worker = this.makeWorker(new URL(`./thread${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url), {
      workerData: { decodeLimitBytes: this.cfg.decodeLimitBytes, nice: this.cfg.nice ?? 0 },
      resourceLimits: { maxOldGenerationSizeMb: this.cfg.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, this.cfg.memoryMb / 8)) },
    });
    const slot: Slot = { worker, ready: false, surge };
    worker.on('message', (reply: PdfThreadReply | ToolCall) => {
      if (isToolCall(reply)) return this.runToolFor(slot, reply);
      if (reply.id === 0) {
        slot.ready = true;
        this.dispatch();
        // A surge thread whose key was served by another thread meanwhile is not kept.
        this.shrink(slot);
        return;
      }
      const job = slot.job;
      if (!job || job.request.id !== reply.id) return;
      this.release(slot);
      if (reply.error) slot.spent = true;
      this.shrink(slot);
      if (!reply.error) job.resolve(reply.value);
      else if (reply.error.kind === 'input') job.reject(new InputError(reply.error.message));
      else if (reply.error.kind === 'busy') job.reject(new BusyError(reply.error.message));
      // Not a catalogue error: each caller words its own 500 (`Failed to merge PDFs: …`), as before the thread.
      else job.reject(new Error(reply.error.message));
      this.dispatch();
    });
    worker.on('error', (err) => this.died(slot, err));
    worker.on('exit', (code) => this.died(slot, new Error(`PDF thread exited (${code})`)));
    return slot;
  }

  /**
   * Runs a tool the slot's job asked for (tool-relay.ts) on the job's tool engine, for its caller,
   * killed when the job ends; the answer goes back only to the thread still running that job.
   */
  private runToolFor(slot: Slot, call: ToolCall): void {
    const job = slot.job;
    if (!job || job.request.id !== call.id) return;
    const { seq, cmd, args, opts } = call.tool;
    const answer = (a: ToolAnswer) => {
      if (slot.job === job) slot.worker.postMessage(a);
    };
    runTool(cmd, args, { ...opts, signal: job.ended.signal, owner: job.owner, tools: job.tools }).then(
      (result) => answer({ toolSeq: seq, result }),
      (err: unknown) => answer({ toolSeq: seq, error: { busy: err instanceof BusyError, message: (err as Error)?.message ?? String(err) } }),
    );
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue;
      // A surge thread serves only a key below its share while another holds more (the fair
      // queue's next job is then that key's), never the key whose backlog it was started beside.
      if (slot.surge && this.queue.starved(this.cfg.threads) === 0) continue;
      const job = this.queue.take();
      if (!job) break;
      slot.job = job;
      clearTimeout(slot.idleTimer);
      slot.worker.ref();
      const seconds = Math.round(this.cfg.timeoutMs / 1000);
      slot.timer = setTimeout(() => this.kill(slot, new InputError(`The PDF work did not finish within ${seconds} s: the files are too complex for this service.`)), this.cfg.timeoutMs);
      slot.worker.postMessage(job.request);
    }
    this.grow();
  }

  /** The slot's job is over: the timer and abort listener go, its owner's turn ends. */
  private release(slot: Slot): void {
    clearTimeout(slot.timer);
    // An idle thread does not keep the process alive (a service or test that never closes the engine still exits).
    slot.worker.unref();
    const job = slot.job;
    if (job?.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    if (job) this.queue.done(job.owner);
    slot.job = undefined;
    job?.ended.abort(new Error('the PDF job is over'));
  }

  /** Ends the slot's job with `err` and terminates its thread (the memory it held goes with it). */
  private kill(slot: Slot, err: unknown): void {
    const job = slot.job;
    this.release(slot);
    job?.reject(err);
    this.drop(slot);
  }

  /** A thread died on its own: out of heap (the input's fault, 400) or a crash (ours, 500). */
  private died(slot: Slot, err: Error): void {
    if (!this.slots.includes(slot)) return;
    const outOfMemory = (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
    if (!this.closed) this.log.warn({ err: err.message }, 'PDF thread stopped; replacing it');
    this.kill(
      slot,
      outOfMemory
        ? new InputError(`The PDF files need more than the ${this.cfg.memoryMb} MB of memory this service gives one PDF job.`, { cause: err })
        : new OperationFailedError('The PDF engine stopped unexpectedly. Please retry.', { cause: err }),
    );
  }

  private drop(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => {});
    void slot.worker.terminate();
    if (!this.closed) {
      this.grow();
      this.dispatch();
    }
  }

  /** Fails whatever waits or runs and terminates every thread. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.drain()) job.reject(new OperationFailedError('The PDF engine is shutting down.'));
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      const job = slot.job;
      this.release(slot);
      job?.reject(new OperationFailedError('The PDF engine is shutting down.'));
      slot.worker.removeAllListeners();
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
