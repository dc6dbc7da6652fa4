/**
 * The LibreOffice pool (spec §4.6; design: "Office supervisor"): a fixed number of warm workers,
 * a bounded queue (full → `BusyError`, 429) served in turns across callers' keys (issue 24), a
 * per-conversion timeout that starts when a worker takes the job (queue wait does not count),
 * and restarts after N conversions, a crash, a hang or a caller's hang-up mid-conversion (the
 * worker is killed at once). Gotenberg runs one LibreOffice; a pool lets conversions overlap.
 * ZIP-based inputs are admitted by their central directory first (zip-admission.ts).
 *
 * A job's input file is written when the job is accepted, before it waits, so handing it to a
 * free worker is synchronous: no worker can die between being chosen and taking the job.
 *
 * A job runs at its key's fair nice value (a key's only conversion at `OFFICE_NICE`, each further
 * one lower). A service without CAP_SYS_NICE cannot raise a worker lowered for a flood back, so a
 * job goes to a free worker already at or above its priority (lowering is always allowed); when
 * only lower ones are free and the raise is refused, that worker is recycled and the job waits
 * for it or any other worker at its priority, whichever is free first: no key's conversion runs
 * below its value because another key's ran there before.
 */
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { BusyError, InputError } from '../../errors.js';
import { conversionFailed, publicError } from './failures.js';
import type { OfficeConvertInput, OfficeConvertOptions, OfficeConvertResult, OfficeStats } from './types.js';
import { OfficeWorker, WorkerStopped, type WorkerConfig } from './worker.js';
import { JobFailure, type WorkerJob } from './job.js';
import { FairQueue } from '../../util/fair-queue.js';
import { fairNice, RunsByKey } from '../tools/priority.js';
import { admitZip, admitZipFile, isZip, type ZipCaps } from './zip-admission.js';

/** Pool settings (read from the environment by the factory). */
export interface PoolConfig extends Omit<WorkerConfig, 'poolSize' | 'token'> {
  size: number;
  queueLimit: number;
  timeoutMs: number;
  maxConversions: number;
  workDir: string;
  /** What a ZIP-based input (OOXML, ODF) may declare before LibreOffice is given it. */
  zip: ZipCaps;
  /** How much lower each further concurrent job of the same key runs than `nice` (TOOLS_NICE_STEP). */
  niceStep?: number;
}

/** The owner of jobs whose caller is not known: they share one turn, in arrival order. */
const NO_OWNER = '';

/** A job taken from the queue: its nice value is fixed (its key's count taken) and it runs as soon as a worker fits. */
interface Placed {
  item: Queued;
  nice: number;
  /** The worker recycled because it could not be raised for this job, while it restarts. */
  renewing: OfficeWorker | null;
}

interface Queued {
  /** Whose turn this job takes (the caller's key); see FairQueue. */
  owner: string;
  job: WorkerJob;
  dir: string;
  ext: string | null;
  enqueuedAt: number;
  signal?: AbortSignal;
  resolve: (r: OfficeConvertResult) => void;
  reject: (e: unknown) => void;
  cleanup: () => void;
}

/** Import filters that LibreOffice's type detection would otherwise get wrong for us. */
const IMPORT_FILTERS: Record<string, { filter: string; options?: string }> = {
  // The default HTML import (writerweb) lost the first heading in our measurements.
  html: { filter: 'HTML (StarWriter)' },
  htm: { filter: 'HTML (StarWriter)' },
  xhtml: { filter: 'HTML (StarWriter)' },
  // Comma-separated, double quotes, UTF-8 (charset 76), from line 1, special numbers detected:
  // without options Calc guesses a legacy charset and garbles non-ASCII text.
  csv: { filter: 'Text - txt - csv (StarCalc)', options: '44,34,76,1,,0,false,true' },
};

/** Extensions whose content is text, so LibreOffice's plain-text import is the right one by default. */
const PLAIN_TEXT = new Set(['txt', 'csv', 'tsv', 'tab']);

/** Valid UTF-8 text is imported as UTF-8 rather than left to the charset guess. */
function textFilter(data: Uint8Array): { filter: string; options?: string } | undefined {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
    return { filter: 'Text (encoded)', options: 'UTF8' };
  } catch {
    return undefined;
  }
}

/** {@link textFilter} of a file's bytes, read in chunks (a file input is never held whole). */
async function textFilterOfFile(file: string): Promise<{ filter: string; options?: string } | undefined> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of createReadStream(file)) decoder.decode(chunk as Buffer, { stream: true });
    decoder.decode();
    return { filter: 'Text (encoded)', options: 'UTF8' };
  } catch (err) {
    if (err instanceof TypeError) return undefined;
    throw conversionFailed('the input could not be read.', err);
  }
}

/** Delay before the n-th retry (n ≥ 1) of a worker that failed to start: 1 s doubling to a minute. */
const retryDelay = (n: number) => Math.min(60_000, 1000 * 2 ** Math.min(n - 1, 6));

/** A file input that cannot be opened is the service's failure; a refusal stays the 400 it is. */
function unreadable(err: unknown): never {
  if (err instanceof InputError) throw err;
  throw conversionFailed('the input could not be read.', err);
}

/** A pool of warm LibreOffice workers with a bounded queue. */
export class OfficePool {
  private readonly workers: OfficeWorker[];
  /** Jobs whose input is written, served in turns across owners. */
  private readonly queue = new FairQueue<Queued>();
  /** Jobs running per key: a key's further concurrent jobs run at a lower priority. */
  private readonly byKey = new RunsByKey();
  /** Jobs taken in their turn that wait for a worker at their priority (see `place`). */
  private readonly parked: Placed[] = [];
  /** Jobs accepted whose input is still being written: they count against the queue limit. */
  private staging = 0;
  private started: Promise<void> | null = null;
  private closed = false;
  /** Start failures in a row per worker; a worker in here is down until a start succeeds. */
  private readonly failedStarts = new Map<OfficeWorker, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly cfg: PoolConfig) {
    const workerCfg = { ...cfg, poolSize: cfg.size, token: randomBytes(6).toString('hex') };
    this.workers = Array.from({ length: cfg.size }, (_, i) => new OfficeWorker(i, workerCfg, (w, crashed) => this.restart(w, crashed ? 'crash' : 'kill')));
  }

  /** Starts every worker (idempotent); conversions queue meanwhile. */
  warm(): Promise<void> {
    if (!this.started) {
      this.started = (async () => {
        await mkdir(this.cfg.workDir, { recursive: true });
        await Promise.all(this.workers.map((w) => this.startWorker(w)));
      })();
    }
    return this.started;
  }

  /** True when every worker's last start failed and none is trying again right now. */
  private unavailable(): boolean {
    return this.workers.every((w) => this.failedStarts.has(w) && w.state !== 'starting');
  }

  private later(fn: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private async startWorker(w: OfficeWorker): Promise<void> {
    if (this.closed) return;
    try {
      await w.start();
      this.failedStarts.delete(w);
    } catch (err) {
      // Closing interrupts starts; nothing failed, and the profile may already be someone else's.
      if (this.closed || err instanceof WorkerStopped) return;
      const failures = (this.failedStarts.get(w) ?? 0) + 1;
      this.failedStarts.set(w, failures);
      this.cfg.log.error({ err, worker: w.index, failures }, 'LibreOffice worker failed to start');
      // A damaged profile is the usual cause of repeated start failures: start the next one fresh.
      const profile = w.claimedProfile;
      if (profile) await rm(profile, { recursive: true, force: true }).catch(() => {});
      if (this.unavailable()) {
        for (const q of this.queue.drain()) {
          q.cleanup();
          q.reject(conversionFailed('LibreOffice is not available.', err));
        }
        for (const p of this.parked.splice(0)) this.unpark(p, conversionFailed('LibreOffice is not available.', err));
      }
      // A job parked for this worker's restart is free to take another worker at its priority now.
      if (this.parked.length > 0) this.dispatch();
      // Keep trying in the background, slowly: requests meanwhile fail at once (see `convert`).
      if (!this.closed) this.later(() => void this.startWorker(w), retryDelay(failures));
      return;
    }
    if (this.closed) {
      await w.stop();
      return;
    }
    this.dispatch();
  }

  /** `why`: `recycle` (conversion limit), `kill` (hung, killed) or `crash` (died on its own). */
  private restart(w: OfficeWorker, why: 'recycle' | 'kill' | 'crash'): void {
    if (this.closed) return;
    const crashed = why === 'crash';
    w.restarts++;
    if (why === 'recycle') w.recycles++;
    else if (why === 'kill') w.kills++;
    else w.crashes++;
    w.conversions = 0;
    // A worker that keeps crashing right after it starts is retried with a growing delay.
    w.quickDeaths = crashed && Date.now() - w.startedAt < 10_000 ? w.quickDeaths + 1 : 0;
    if (w.quickDeaths === 0) return void this.startWorker(w);
    this.later(() => void this.startWorker(w), Math.min(30_000, 250 * 2 ** Math.min(w.quickDeaths, 7)));
  }

  /** Converts one document; see `OfficeEngine.convert` for the errors. */
  async convert(input: OfficeConvertInput, opts: OfficeConvertOptions = {}): Promise<OfficeConvertResult> {
    if (this.closed) throw conversionFailed('the converter is shutting down.');
    if (this.started && this.unavailable()) throw conversionFailed('LibreOffice is not available.');
    const ext = input.extension?.toLowerCase() || null;
    // Before any work or queue slot: an archive declaring too much is refused (400, free).
    const what = ext ? `.${ext} file` : 'document';
    if (input.file !== undefined) await admitZipFile(input.file, this.cfg.zip, what).catch(unreadable);
    else if (isZip(input.data)) admitZip(input.data, this.cfg.zip, what);
    // Read before the queue's count below, which must hold until the slot is taken.
    const forced = (ext && IMPORT_FILTERS[ext]) || (ext === 'txt' ? (input.file !== undefined ? await textFilterOfFile(input.file) : textFilter(input.data)) : undefined);
    // Jobs beyond the free workers wait; `queueLimit` of them may (0: none, only free workers serve).
    const idle = this.workers.filter((w) => w.state === 'idle').length;
    if (this.queue.length + this.parked.length + this.staging - idle >= this.cfg.queueLimit) {
      throw new BusyError('The document converter is busy: too many conversions are waiting. Please retry shortly.');
    }
    const signal = opts.signal;
    signal?.throwIfAborted();
    // A work dir that cannot be created fails this job below (500) as well; the boot warm-up logs it.
    this.warm().catch(() => {});
    const dir = join(this.cfg.workDir, randomBytes(8).toString('hex'));
    // Staged here (no worker sees this directory); the worker that takes the job moves the file
    // into its own job directory, the only one its jail can see.
    const job: WorkerJob = {
      input: join(dir, ext ? `input.${ext}` : 'input'),
      importFilter: forced?.filter ?? null,
      importOptions: forced?.options ?? null,
      plainText: opts.plainText ?? (ext !== null && PLAIN_TEXT.has(ext)),
      formats: ext ? null : (opts.formats ?? null),
      pdfVersion: opts.pdfa ?? 0,
      tagged: opts.tagged ?? true,
      pdfua: opts.pdfua ?? false,
    };
    let item!: Queued;
    const done = new Promise<OfficeConvertResult>((resolve, reject) => {
      item = { owner: opts.owner ?? NO_OWNER, job, dir, ext, enqueuedAt: Date.now(), signal, resolve, reject, cleanup: () => {} };
    });
    // Awaited below, after the input is written; an abort or close may reject it before that.
    done.catch(() => {});
    // The slot is held while the input is written; the job joins its owner's turn once it is.
    this.staging++;
    try {
      // 0700: a staged document is nobody else's to read (a worker gets it moved into its job dir).
      await mkdir(dir, { recursive: true, mode: 0o700 });
      // A file input is copied as it is, never read here.
      await (input.file !== undefined ? copyFile(input.file, job.input) : writeFile(job.input, input.data));
    } catch (err) {
      this.staging--;
      await rm(dir, { recursive: true, force: true }).catch(() => {});
      throw conversionFailed('the input could not be written for LibreOffice.', err);
    }
    this.staging--;
    if (this.closed || signal?.aborted) {
      await rm(dir, { recursive: true, force: true }).catch(() => {});
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      throw conversionFailed('the converter is shutting down.');
    }
    if (signal) {
      // While it waits, an abort drops it; once a worker runs it, the worker itself stops (runOn).
      const onAbort = () => {
        if (this.queue.remove(item)) item.reject(signal.reason ?? new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      item.cleanup = () => signal.removeEventListener('abort', onAbort);
    }
    this.queue.push(item);
    this.dispatch();
    try {
      return await done;
    } finally {
      item.cleanup();
      await rm(dir, { recursive: true, force: true }).catch(() => {});
    }
  }

  private dispatch(): void {
    // Jobs that already had their turn and wait for a worker at their priority come first.
    for (const p of [...this.parked]) if (this.parked.includes(p)) this.place(p);
    // Each job placed takes an idle worker, to run or to be recycled, so this loop ends.
    while (this.workers.some((w) => w.state === 'idle')) {
      // The earliest job of the owner running the fewest conversions now (one key's backlog
      // does not hold back another key's first conversion by more than one conversion).
      const item = this.queue.take();
      if (!item) return;
      item.cleanup();
      // A key's only job runs at OFFICE_NICE, each further one of the same key lower (fair CPU across keys).
      this.place({ item, nice: fairNice(this.cfg.nice ?? 0, this.cfg.niceStep ?? 0, this.byKey.start(item.owner)), renewing: null });
    }
  }

  /**
   * Runs `p` on an idle worker at or above its priority, the lowest such one (the higher ones stay
   * for jobs that need them); if there is none, on the least lowered idle worker raised to it.
   * A raise that is refused (no CAP_SYS_NICE) recycles that worker (a fresh one starts at
   * OFFICE_NICE) and parks the job until a worker fits; a job already waiting for such a restart
   * does not recycle another one.
   */
  private place(p: Placed): void {
    const idle = this.workers.filter((w) => w.state === 'idle');
    const fits = idle.filter((w) => w.nice <= p.nice).sort((a, b) => b.nice - a.nice)[0];
    const waiting = p.renewing !== null && (p.renewing.state === 'stopped' || p.renewing.state === 'starting') && !this.failedStarts.has(p.renewing);
    const w = fits ?? (waiting ? undefined : idle.sort((a, b) => a.nice - b.nice)[0]);
    if (w?.setNice(p.nice)) {
      const i = this.parked.indexOf(p);
      if (i >= 0) this.parked.splice(i, 1);
      p.item.cleanup();
      void this.runOn(w, p.item);
      return;
    }
    if (w) {
      this.recycle(w);
      p.renewing = w;
    }
    if (!this.parked.includes(p)) this.park(p);
  }

  /** Holds `p` until a worker fits; a hang-up meanwhile drops it (its key's counts too). */
  private park(p: Placed): void {
    const signal = p.item.signal;
    if (signal?.aborted) return this.unpark(p, signal.reason ?? new Error('aborted'));
    this.parked.push(p);
    if (!signal) return;
    const onAbort = () => {
      const i = this.parked.indexOf(p);
      if (i < 0) return;
      this.parked.splice(i, 1);
      this.unpark(p, signal.reason ?? new Error('aborted'));
      this.dispatch();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.item.cleanup = () => signal.removeEventListener('abort', onAbort);
  }

  /** Fails a job that was taken but never ran: its key's counts end as if it had. */
  private unpark(p: Placed, err: unknown): void {
    p.item.cleanup();
    p.item.reject(err);
    this.byKey.end(p.item.owner);
    this.queue.done(p.item.owner);
  }

  /** Stops `w` and starts it fresh (at OFFICE_NICE, its conversion count at 0); nobody gets it meanwhile. */
  private recycle(w: OfficeWorker): void {
    w.state = 'stopped';
    void w.stop().then(() => this.restart(w, 'recycle'));
  }

  private async runOn(w: OfficeWorker, item: Queued): Promise<void> {
    const queuedMs = Date.now() - item.enqueuedAt;
    const started = Date.now();
    try {
      const { pages, type, pdf } = await this.runAndRecycle(w, item.job, this.cfg.timeoutMs, item.signal);
      if (!pdf || pdf.byteLength === 0) throw new JobFailure('export', 'LibreOffice produced no output');
      item.resolve({ pdf, pages, type, convertMs: Date.now() - started, queuedMs });
    } catch (err) {
      // A caller that hung up (or ran out of time) gets its own reason back, not a conversion error.
      if (err instanceof JobFailure && err.kind === 'aborted') item.reject(item.signal?.reason ?? new Error('aborted'));
      else item.reject(publicError(err, item.ext));
    } finally {
      this.byKey.end(item.owner);
      this.queue.done(item.owner);
      this.dispatch();
    }
  }

  /** Runs a job, then retires the worker if it reached its conversion limit, before anyone else gets it. */
  private async runAndRecycle(w: OfficeWorker, job: WorkerJob, timeoutMs: number, signal?: AbortSignal) {
    try {
      return await w.run(job, timeoutMs, signal);
    } finally {
      // LibreOffice slowly leaks memory and state across documents.
      if (w.state === 'idle' && w.conversions >= this.cfg.maxConversions) this.recycle(w);
    }
  }

  /** A snapshot of the workers and the queue. */
  stats(): OfficeStats {
    return {
      size: this.cfg.size,
      queued: this.queue.length + this.parked.length + this.staging,
      queueLimit: this.cfg.queueLimit,
      workers: this.workers.map((w) => ({ index: w.index, state: w.state, sofficePid: w.sofficePid, conversions: w.conversions, restarts: w.restarts, recycles: w.recycles, kills: w.kills, crashes: w.crashes })),
    };
  }

  /** Stops every worker, cancels pending restarts and fails whatever is still queued. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const q of this.queue.drain()) {
      q.cleanup();
      q.reject(conversionFailed('the converter is shutting down.'));
    }
    for (const p of this.parked.splice(0)) this.unpark(p, conversionFailed('the converter is shutting down.'));
    await Promise.allSettled(this.workers.map((w) => w.stop()));
    for (const w of this.workers) w.release();
  }

  /** Synchronous kill of every process (process exit). */
  killNow(): void {
    for (const w of this.workers) w.killNow();
  }
}
