/**
 * PDF engine contract (spec §4.6): merging and metadata with pdf-lib, PDF/A-1b/2b/3b with
 * ghostscript, structure-preserving merges for PDF/UA, and inspection helpers used by tests and
 * by the documents plugin to check its own output.
 */
import type { ToolEngine } from '../tools/types.js';

/** PDF/A parts the service produces, all at conformance level B (spec §4.6). */
export type PdfAPart = 1 | 2 | 3;

/** Document information (spec §4.6 `metadata`). */
export interface PdfMetadata {
  Title?: string;
  Author?: string;
  Subject?: string;
  Keywords?: string;
}

/**
 * An input the PDF thread reads from a file itself (capped there), so the serving thread never
 * holds the caller's whole file: a large body's decoded field or a download, written by the
 * caller into a scratch folder of its own that outlives the merge.
 */
export interface PdfFile {
  path: string;
}

/** An input to merge: its bytes, or the file that holds them. */
export type PdfInput = Uint8Array | PdfFile;

/** Result of a merge. */
export interface MergeResult {
  pdf: Uint8Array;
  pages: number;
  /** True when every input had a structure tree and the merged tree was kept (PDF/UA basis). */
  tagged: boolean;
  /** With `keepStructure`: the inputs (0-based) that had no structure tree and got page-level tags. */
  coarse: number[];
  /** The title of the first input that has one (PDF/UA needs a title). */
  title: string | undefined;
  /** The language of the first input that names one (catalog `/Lang`). */
  lang: string | undefined;
}

/** What `inspect` reads back from a PDF. */
export interface PdfInspection {
  pages: number;
  encrypted: boolean;
  info: Record<string, string>;
  /** The XMP packet of the catalog, if any. */
  xmp: string | null;
  pdfa: { part: number; conformance: string } | null;
  pdfua: number | null;
  outputIntent: boolean;
  tagged: boolean;
  /** Font names with whether each is embedded (from `pdffonts`). */
  fonts: { name: string; embedded: boolean }[];
}

/** What `finalize` writes. */
export interface FinalizeOptions {
  metadata?: PdfMetadata;
  pdfa?: PdfAPart;
  pdfua?: boolean;
  /** With `pdfua`: the language to declare when the document names none (default `en`). */
  lang?: string;
}

/**
 * Who a job is for (`owner`, the caller's key: jobs wait in turns across keys), when its caller
 * stops waiting, and the instance's tool engine (`tools`, `ctx.engines.tools`) its external tools
 * (ghostscript, qpdf) run on, so the server's TOOLS_* settings, slots and turns apply to them;
 * without it they run on the process-wide engine made from the process environment.
 */
export interface PdfRunOptions {
  signal?: AbortSignal;
  owner?: string;
  tools?: ToolEngine;
}

/**
 * PDF tools. Input problems throw `InputError` naming the file (`files[1]`). Page counts, merges
 * and `finalize` run in a worker thread with a heap cap, a time limit and a cap on decompressed
 * bytes: a file over a limit is an `InputError` (400), a thread that dies otherwise an
 * `OperationFailedError` (500), an aborted `signal` rejects with its reason and stops the work.
 */
export interface PdfEngine {
  /** Page count of a PDF (throws `InputError` when it cannot be read). */
  pageCount(pdf: Uint8Array, label?: string, run?: PdfRunOptions): Promise<number>;
  /**
   * Merges PDFs in order (each given as bytes or as a file the PDF thread reads). Encrypted
   * inputs that open without a password are decrypted first;
   * password-protected, corrupt or non-PDF inputs throw `InputError` naming `labels[i]`.
   * `keepStructure` merges the structure trees, tagging pages of inputs without one page by page,
   * so the result is always a tagged PDF (structure.ts).
   */
  merge(files: PdfInput[], opts?: { labels?: string[]; keepStructure?: boolean } & PdfRunOptions): Promise<MergeResult>;
  /** Rewrites a PDF as PDF/A-<part>b with ghostscript (fonts embedded, sRGB output intent). */
  toPdfA(pdf: Uint8Array, part: PdfAPart, run?: PdfRunOptions): Promise<Uint8Array>;
  /**
   * Writes Unicode document information and a matching XMP packet (with the PDF/A and PDF/UA
   * identification when asked). Runs last, because ghostscript drops non-ASCII metadata. With
   * `pdfua`: a title, shown in the window bar, and a document language (`en` when none) always;
   * `MarkInfo` and `pdfuaid` only on a tagged PDF.
   */
  finalize(pdf: Uint8Array, opts: FinalizeOptions & PdfRunOptions): Promise<Uint8Array>;
  /** Reads back pages, info, XMP identification, output intent, tags and fonts. */
  inspect(pdf: Uint8Array): Promise<PdfInspection>;
  /** Runs `qpdf --check`; `ok` is false when qpdf reports errors. */
  check(pdf: Uint8Array): Promise<{ ok: boolean; output: string }>;
}
