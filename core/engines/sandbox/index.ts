/** Sandbox factories (the code lane replaces these stubs). */
import type { EngineOptions } from '../options.js';
import type { JsSandbox, PythonSandbox } from './types.js';

/** Creates the JavaScript sandbox pool. */
export function createJsSandbox(_opts: EngineOptions): JsSandbox & { close(): Promise<void> } {
  return { kind: 'js', async close() {} };
}

/** Creates the Python sandbox. */
export function createPythonSandbox(_opts: EngineOptions): PythonSandbox & { close(): Promise<void> } {
  return { kind: 'python', async close() {} };
}
