/** PDF engine factory (the documents lane replaces this stub). */
import type { EngineOptions } from '../options.js';
import type { PdfEngine } from './types.js';

/** Creates the PDF tools. */
export function createPdfEngine(_opts: EngineOptions): PdfEngine & { close(): Promise<void> } {
  return { kind: 'pdf', async close() {} };
}
