/**
 * Office engine contract (spec §4.6; design: "Office supervisor"): a small pool of warm
 * LibreOffice listeners that turn documents into PDF without a cold start per document.
 */

/** One conversion request. */
export interface OfficeConvertInput {
  /** The document bytes. */
  data: Uint8Array;
  /** Lower-case extension without the dot (`docx`, `html`…); LibreOffice detects the format from it and the bytes. */
  extension: string;
}

/** Export options of one conversion. */
export interface OfficeConvertOptions {
  /** Write a tagged (structured) PDF, the basis of PDF/UA. Default true. */
  tagged?: boolean;
  /** Ask LibreOffice's exporter for PDF/UA (implies tagged). */
  pdfua?: boolean;
  /** PDF/A part written by LibreOffice's exporter (1 = PDF/A-1b, 2 = PDF/A-2b, 3 = PDF/A-3b). */
  pdfa?: 1 | 2 | 3;
  /** Aborts the wait in the queue (a running conversion finishes or times out). */
  signal?: AbortSignal;
}

/** A finished conversion. */
export interface OfficeConvertResult {
  pdf: Uint8Array;
  /** Page count as LibreOffice reported it, when it could. */
  pages: number | null;
  /** Time spent converting, excluding queue wait (ms). */
  convertMs: number;
  queuedMs: number;
}

/** A snapshot of the pool for health checks and tests. */
export interface OfficeStats {
  size: number;
  /** Processes alive now (soffice and driver pids per worker). */
  workers: { index: number; state: 'starting' | 'idle' | 'busy' | 'stopped'; sofficePid: number | null; conversions: number; restarts: number }[];
  queued: number;
  queueLimit: number;
}

/**
 * The LibreOffice pool. `convert` throws `BusyError` (429) when the queue is full, `InputError`
 * (400) when LibreOffice cannot open the document (corrupt or password-protected), and
 * `OperationFailedError` (500, `Failed to convert to PDF: …`) when the export fails, times out or
 * LibreOffice dies mid-conversion.
 */
export interface OfficeEngine {
  convert(input: OfficeConvertInput, opts?: OfficeConvertOptions): Promise<OfficeConvertResult>;
  /** Starts the listeners now instead of at the first conversion (boot warm-up). */
  warm(): Promise<void>;
  stats(): OfficeStats;
}
