/**
 * The LibreOffice pool (spec §4.6; design: "Office supervisor"): a fixed number of warm workers,
 * a bounded FIFO queue (full → `BusyError`, 429), a per-conversion timeout that starts when a
 * worker takes the job (queue wait does not count), and restarts after N conversions, a crash or
 * a hang. Gotenberg runs one LibreOffice; a pool lets conversions overlap.
 */
import { mkdir, rm, writeFile, readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { BusyError, InputError, OperationFailedError } from '../../errors.js';
import type { OfficeConvertInput, OfficeConvertOptions, OfficeConvertResult, OfficeStats } from './types.js';
import { JobFailure, OfficeWorker, type WorkerConfig } from './worker.js';

/** Pool settings (read from the environment by the factory). */
export interface PoolConfig extends Omit<WorkerConfig, 'poolSize' | 'token'> {
  size: number;
  queueLimit: number;
  timeoutMs: number;
  maxConversions: number;
  workDir: string;
}

interface Queued {
  input: OfficeConvertInput;
  opts: OfficeConvertOptions;
  enqueuedAt: number;
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

/** The public text of a failed conversion (spec §4.6: `Failed to convert to PDF: [error details]`). */
export function conversionFailed(details: string, cause?: unknown): OperationFailedError {
  return new OperationFailedError(`Failed to convert to PDF: ${details}`, { cause });
}

/** A pool of warm LibreOffice workers with a bounded queue. */
export class OfficePool {
  private readonly workers: OfficeWorker[];
  private readonly queue: Queued[] = [];
  private started: Promise<void> | null = null;
  private closed = false;
  private startFailures = 0;

  constructor(private readonly cfg: PoolConfig) {
    const workerCfg = { ...cfg, poolSize: cfg.size, token: randomBytes(6).toString('hex') };
    this.workers = Array.from({ length: cfg.size }, (_, i) => new OfficeWorker(i, workerCfg, (w, crashed) => this.restart(w, crashed)));
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

  private async startWorker(w: OfficeWorker): Promise<void> {
    if (this.closed) return;
    try {
      await w.start();
      this.startFailures = 0;
    } catch (err) {
      this.cfg.log.error({ err, worker: w.index }, 'LibreOffice worker failed to start');
      this.startFailures++;
      // A damaged profile is the usual cause of repeated start failures: start the next one fresh.
      const profile = w.claimedProfile;
      if (profile) await rm(profile, { recursive: true, force: true }).catch(() => {});
      if (this.workers.every((x) => x.state === 'stopped')) {
        for (const q of this.queue.splice(0)) q.reject(conversionFailed('LibreOffice is not available.', err));
      }
      if (!this.closed && this.startFailures < 20) {
        setTimeout(() => void this.startWorker(w), Math.min(30_000, 500 * 2 ** Math.min(this.startFailures, 6))).unref();
      }
      return;
    }
    if (this.closed) {
      await w.stop();
      return;
    }
    this.dispatch();
  }

  private restart(w: OfficeWorker, crashed = false): void {
    if (this.closed) return;
    w.restarts++;
    w.conversions = 0;
    // A worker that keeps crashing right after it starts is retried with a growing delay.
    w.quickDeaths = crashed && Date.now() - w.startedAt < 10_000 ? w.quickDeaths + 1 : 0;
    if (w.quickDeaths === 0) return void this.startWorker(w);
    setTimeout(() => void this.startWorker(w), Math.min(30_000, 250 * 2 ** Math.min(w.quickDeaths, 7))).unref();
  }

  /** Converts one document; see `OfficeEngine.convert` for the errors. */
  convert(input: OfficeConvertInput, opts: OfficeConvertOptions = {}): Promise<OfficeConvertResult> {
    if (this.closed) return Promise.reject(conversionFailed('the converter is shutting down.'));
    if (this.queue.length >= this.cfg.queueLimit) {
      return Promise.reject(new BusyError('The document converter is busy: too many conversions are waiting. Please retry shortly.'));
    }
    void this.warm();
    return new Promise<OfficeConvertResult>((resolve, reject) => {
      const item: Queued = { input, opts, enqueuedAt: Date.now(), resolve, reject, cleanup: () => {} };
      const signal = opts.signal;
      if (signal) {
        const onAbort = () => {
          const i = this.queue.indexOf(item);
          if (i >= 0) {
            this.queue.splice(i, 1);
            reject(signal.reason ?? new Error('aborted'));
          }
        };
        if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
        signal.addEventListener('abort', onAbort, { once: true });
        item.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(item);
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const w of this.workers) {
      if (this.queue.length === 0) return;
      if (w.state !== 'idle') continue;
      const item = this.queue.shift()!;
      item.cleanup();
      void this.runOn(w, item);
    }
  }

  private async runOn(w: OfficeWorker, item: Queued): Promise<void> {
    const queuedMs = Date.now() - item.enqueuedAt;
    const dir = join(this.cfg.workDir, randomBytes(8).toString('hex'));
    const ext = item.input.extension.toLowerCase();
    const input = join(dir, `input.${ext}`);
    const output = join(dir, 'output.pdf');
    // Hold the worker while the input is written so nothing else is dispatched to it.
    w.state = 'busy';
    const started = Date.now();
    try {
      await mkdir(dir, { recursive: true });
      await writeFile(input, item.input.data);
      if (w.state !== 'busy') {
        // The worker died while the input was written: give the job to the next free worker.
        this.queue.unshift(item);
        return;
      }
      w.state = 'idle';
      const { pages } = await this.runAndRecycle(w,
        {
          input,
          output,
          importFilter: IMPORT_FILTERS[ext]?.filter ?? null,
          importOptions: IMPORT_FILTERS[ext]?.options ?? null,
          pdfVersion: item.opts.pdfa ?? 0,
          tagged: item.opts.tagged ?? true,
          pdfua: item.opts.pdfua ?? false,
        },
        this.cfg.timeoutMs,
      );
      const pdf = await readFile(output).catch(() => undefined);
      if (!pdf || pdf.byteLength === 0) throw new JobFailure('export', 'LibreOffice produced no output');
      item.resolve({ pdf: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength), pages, convertMs: Date.now() - started, queuedMs });
    } catch (err) {
      item.reject(this.toPublic(err, ext));
    } finally {
      await rm(dir, { recursive: true, force: true }).catch(() => {});
      this.dispatch();
    }
  }

  /** Runs a job, then retires the worker if it reached its conversion limit, before anyone else gets it. */
  private async runAndRecycle(w: OfficeWorker, job: Parameters<OfficeWorker['run']>[0], timeoutMs: number) {
    try {
      return await w.run(job, timeoutMs);
    } finally {
      if (w.state === 'idle' && w.conversions >= this.cfg.maxConversions) {
        // Recycle: LibreOffice slowly leaks memory and state across documents.
        w.state = 'stopped';
        void w.stop().then(() => this.restart(w));
      }
    }
  }

  private toPublic(err: unknown, ext: string): Error {
    if (!(err instanceof JobFailure)) return conversionFailed('an unexpected error occurred.', err);
    switch (err.kind) {
      case 'load':
        return new InputError(`The file could not be opened as .${ext}: it is corrupt, password-protected or not a valid .${ext} file.`, { cause: err });
      case 'timeout':
        return conversionFailed(`${err.message}.`, err);
      case 'dead':
        return conversionFailed('LibreOffice stopped during the conversion. Please retry.', err);
      default:
        return conversionFailed(err.message, err);
    }
  }

  /** A snapshot of the workers and the queue. */
  stats(): OfficeStats {
    return {
      size: this.cfg.size,
      queued: this.queue.length,
      queueLimit: this.cfg.queueLimit,
      workers: this.workers.map((w) => ({ index: w.index, state: w.state, sofficePid: w.sofficePid, conversions: w.conversions, restarts: w.restarts })),
    };
  }

  /** Stops every worker and fails whatever is still queued. */
  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.queue.splice(0)) q.reject(conversionFailed('the converter is shutting down.'));
    await Promise.allSettled(this.workers.map((w) => w.stop()));
    for (const w of this.workers) w.release();
  }

  /** Synchronous kill of every process (process exit). */
  killNow(): void {
    for (const w of this.workers) w.killNow();
  }
}
