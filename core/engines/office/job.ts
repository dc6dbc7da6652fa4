/**
 * One conversion as it travels from the pool to a worker and to its UNO driver
 * (driver-source.ts documents the line protocol), and how it can fail.
 */

/** A conversion as the driver understands it; paths are the ones the driver sees (inside the jail). */
export interface DriverJob {
  input: string;
  output: string;
  importFilter: string | null;
  importOptions: string | null;
  /** Whether LibreOffice's plain-text import may take the input (see the driver's docstring). */
  plainText: boolean;
  /** With no import filter and no extension: the extensions the detected type must have one of. */
  formats: readonly string[] | null;
  pdfVersion: number;
  tagged: boolean;
  pdfua: boolean;
}

/**
 * A conversion handed to a worker: `input` is the staged file on the host (`input.<ext>`), which
 * the worker moves into its own job directory; the worker chooses where the output goes.
 */
export type WorkerJob = Omit<DriverJob, 'output'>;

/**
 * How a job ended when it did not succeed: `load` LibreOffice could not open it, `type` its type
 * detection refused it, `internal` the job files were unusable (our fault), `export`, `dead`,
 * `timeout`, `aborted` (the caller hung up or ran out of time, and the worker was killed) and
 * `memory` (the worker went over its memory cgroup and the kernel killed it, or, under an
 * address-space limit, an allocation failed and LibreOffice aborted or gave the load up; message: the cap).
 */
export type FailureKind = 'load' | 'type' | 'export' | 'internal' | 'dead' | 'timeout' | 'aborted' | 'memory';

/** A failed job with the reason LibreOffice gave; `reason` refines `type` (`plain`, `unknown`, `unsupported`). */
export class JobFailure extends Error {
  constructor(readonly kind: FailureKind, message: string, readonly reason?: string) {
    super(message);
  }
}

/** A finished job: pages as LibreOffice counted them, the type it detected and the PDF (undefined: none written). */
export interface JobDone {
  pages: number | null;
  type: string | null;
  pdf: Uint8Array | undefined;
}
