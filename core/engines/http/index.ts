/** HTTP engine factory (the web lane replaces this stub). */
import type { EngineOptions } from '../options.js';
import type { HttpEngine } from './types.js';
import { NotConfiguredError } from '../../errors.js';

/** Creates the outbound HTTP engine. */
export function createHttpEngine(_opts: EngineOptions): HttpEngine & { close(): Promise<void> } {
  return {
    async request() {
      throw new NotConfiguredError();
    },
    async close() {},
  };
}
