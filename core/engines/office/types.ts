/**
 * Office engine contract (spec §4.6; design: "Office supervisor"): a small pool of warm
 * LibreOffice listeners that turn documents into PDF without a cold start per document.
 */

/**
 * One conversion request: the document's bytes (`data`), or a file holding them (`file`: a large
 * body's decoded file, a downloaded or scratch file), which is copied into the job's folder and
 * never read into memory (only a ZIP archive's directory is read, to admit it; issue 24).
 */
export type OfficeConvertInput = ({ data: Uint8Array; file?: never } | { file: string; data?: never }) & {
  /**
   * Lower-case extension without the dot (`docx`, `html`…): LibreOffice's type detection prefers
   * it and checks the bytes. `null`: the bytes alone decide (see `OfficeConvertOptions.formats`).
   */
  extension: string | null;
};

/** Export options of one conversion. */
export interface OfficeConvertOptions {
  /** Write a tagged (structured) PDF, the basis of PDF/UA. Default true. */
  tagged?: boolean;
  /** Ask LibreOffice's exporter for PDF/UA (implies tagged). */
  pdfua?: boolean;
  /** PDF/A part written by LibreOffice's exporter (1 = PDF/A-1b, 2 = PDF/A-2b, 3 = PDF/A-3b). */
  pdfa?: 1 | 2 | 3;
  /**
   * Accept LibreOffice's plain-text import, which takes any bytes. Default: only for text
   * extensions (txt, csv, tsv); otherwise a file only that import accepts is a 400.
   */
  plainText?: boolean;
  /** With `extension: null`: the extensions the detected type must have one of (else a 400). */
  formats?: readonly string[];
  /** Aborts the wait in the queue, or a running conversion (its worker is killed and replaced). */
  signal?: AbortSignal;
  /** Whose turn the conversion takes (the caller's key id): the queue serves owners in turn. */
  owner?: string;
}

/** A finished conversion. */
export interface OfficeConvertResult {
  pdf: Uint8Array;
  /** Page count as LibreOffice reported it, when it could. */
  pages: number | null;
  /** LibreOffice's name of the detected type (`writer_MS_Word_2007`), null when an import filter was forced. */
  type: string | null;
  /** Time spent converting, excluding queue wait (ms). */
  convertMs: number;
  queuedMs: number;
}

/** A snapshot of the pool for health checks and tests. */
export interface OfficeStats {
  size: number;
  /** Processes alive now (soffice and driver pids per worker). */
  workers: { index: number; state: 'starting' | 'idle' | 'busy' | 'stopped'; sofficePid: number | null; conversions: number; restarts: number; recycles: number; kills: number; crashes: number }[];
  queued: number;
  queueLimit: number;
}

/**
 * The LibreOffice pool. `convert` throws `BusyError` (429) when the queue is full, `InputError`
 * (400) when a ZIP-based input declares more than the caps (entries, uncompressed size, ratio) or
 * its ZIP directory is damaged, when LibreOffice cannot open the document (corrupt or password-protected) or its type
 * detection does not accept the bytes as the extension's format, and `OperationFailedError`
 * (500, `Failed to convert to PDF: …`) when LibreOffice is not available (every worker failed to
 * start: answered at once while starts are retried in the background), the export fails, times
 * out, LibreOffice dies mid-conversion or the work directory is unusable. An aborted `signal`
 * rejects with the signal's reason.
 */
export interface OfficeEngine {
  convert(input: OfficeConvertInput, opts?: OfficeConvertOptions): Promise<OfficeConvertResult>;
  /** Starts the listeners now instead of at the first conversion (boot warm-up). */
  warm(): Promise<void>;
  stats(): OfficeStats;
}
