/**
 * The service-managed engines a plugin may use through its context (design: "Engines kept
 * warm"). Each engine lives in its own folder with its own `types.ts`; this file only gathers
 * them. Engines start lazily on first use, or at boot when a plugin's `setup` warms them.
 */
import type { HttpEngine } from './http/types.js';
import type { FileStore } from './files/types.js';
import type { BrowserEngine } from './browser/types.js';
import type { OfficeEngine } from './office/types.js';
import type { PdfEngine } from './pdf/types.js';
import type { JsSandbox, PythonSandbox } from './sandbox/types.js';
import type { ComputeEngine } from './compute/types.js';
import type { ToolEngine } from './tools/types.js';

import type { PageStore } from './page-store/types.js';

/** Everything a plugin can reach on this machine. */
export interface Engines {
  /** Outbound HTTP through undici with the SSRF guard, size cap, timeouts and decoding. */
  readonly http: HttpEngine;
  /** Produced files with signed, expiring download URLs. */
  readonly files: FileStore;
  /** Warm headless Chromium pool (puppeteer-core on Debian's chromium-headless-shell, or /usr/bin/chromium). */
  readonly browser: BrowserEngine;
  /** Warm LibreOffice pool for document conversion. */
  readonly office: OfficeEngine;
  /** PDF merge, metadata, PDF/A and inspection tools. */
  readonly pdf: PdfEngine;
  /** JavaScript in isolated-vm isolates inside worker processes. */
  readonly js: JsSandbox;
  /** CPython in an OS sandbox. */
  readonly python: PythonSandbox;
  /** CPU-bound plugin work (parsing, conversion) in worker threads, off the thread that serves HTTP. */
  readonly compute: ComputeEngine;
  /** Confined, memory-capped local tools (ffmpeg, tesseract, poppler, qpdf) and image admission. */
  readonly tools: ToolEngine;

  /** The scrape cache and change-tracking snapshots, in the service's store (shared by instances on PostgreSQL). */
  readonly pageStore: PageStore;
}

/** Something that holds processes or handles and must be stopped at shutdown. */
export interface Closable {
  close(): Promise<void>;
}
