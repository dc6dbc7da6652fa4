/**
 * PDF engine factory (spec §4.6): pdf-lib for merging and metadata, ghostscript for PDF/A,
 * qpdf and poppler for repair and inspection. Every pdf-lib read of a user's file (page counts,
 * merges, metadata) runs in a worker thread (thread-pool.ts, issue 24), never on the thread that
 * serves requests: `PDF_THREADS` (default 2), `PDF_QUEUE_SIZE` (default 32), `PDF_TIMEOUT_MS`
 * (default 60000), `PDF_MEMORY_MB` (heap of one thread, default 512) and `PDF_MAX_DECODED_MB`
 * (bytes one job may decompress, default 100); the threads run `COMPUTE_NICE` below the serving one.
 * Every external tool (ghostscript, qpdf) runs on the serving thread, on the call's tool engine
 * (`tools`), a PDF thread's included (tool-relay.ts).
 */
import type { EngineOptions } from '../options.js';
import type { PdfEngine } from './types.js';
import { findSrgbProfile, toPdfA } from './pdfa.js';
import { PdfThreadPool } from './thread-pool.js';
import { intOr } from '../../util/int-setting.js';

/** Creates the PDF tools. `GS_BINARY` and `PDF_ICC_PROFILE` override the defaults. */
export function createPdfEngine(opts: EngineOptions): PdfEngine & { close(): Promise<void> } {
  const icc = findSrgbProfile(opts.env);
  const gs = opts.env.GS_BINARY?.trim() || 'gs';
  const threads = new PdfThreadPool(
    {
      threads: intOr(opts.env, 'PDF_THREADS', 2),
      queueLimit: intOr(opts.env, 'PDF_QUEUE_SIZE', 32, 0),
      timeoutMs: intOr(opts.env, 'PDF_TIMEOUT_MS', 60_000, 100),
      memoryMb: intOr(opts.env, 'PDF_MEMORY_MB', 512, 64),
      decodeLimitBytes: intOr(opts.env, 'PDF_MAX_DECODED_MB', 100) * 1_000_000,
      // Compute work like the compute engine's, at its level below the serving thread.
      nice: Math.min(19, intOr(opts.env, 'COMPUTE_NICE', 5, 0)),
    },
    opts.log,
  );
  return {
    pageCount: (pdf, label = 'file', run) => threads.run('pageCount', { pdf, label }, run),
    merge: (files, { labels, keepStructure, ...run } = {}) => threads.run('merge', { files, labels, keepStructure }, run),
    toPdfA: (pdf, part, run) => toPdfA(pdf, part, icc, gs, run),
    // Only the document's options cross to the thread; the call's signal, key and tool engine stay here.
    finalize: (pdf, { signal, owner, tools, ...o }) => threads.run('finalize', { pdf, opts: o }, { signal, owner, tools }),
    // pdf-lib (~170 modules, ~0.5 s of CPU to load) only where a PDF is inspected on this thread,
    // not at every start: the threads load it for their own work.
    inspect: async (pdf) => (await import('./inspect.js')).inspect(pdf),
    check: async (pdf) => (await import('./inspect.js')).check(pdf),
    close: () => threads.close(),
  };
}
