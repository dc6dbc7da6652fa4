/** Office engine factory (the documents lane replaces this stub). */
import type { EngineOptions } from '../options.js';
import type { OfficeEngine } from './types.js';

/** Creates the LibreOffice pool. */
export function createOfficeEngine(_opts: EngineOptions): OfficeEngine & { close(): Promise<void> } {
  return { kind: 'office', async close() {} };
}
