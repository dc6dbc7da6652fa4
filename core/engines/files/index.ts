/** File store factory (the documents lane replaces this stub). */
import type { EngineOptions } from '../options.js';
import type { FileStore } from './types.js';
import { NotConfiguredError } from '../../errors.js';

/** Creates the file store. */
export function createFileStore(_opts: EngineOptions): FileStore & { close(): Promise<void> } {
  return {
    async put() {
      throw new NotConfiguredError();
    },
    async close() {},
  };
}
