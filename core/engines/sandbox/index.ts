/**
 * Sandbox factories (spec §4.8, issue 6). Both engines read their limits from the environment
 * (`SANDBOX_*`, see settings.ts) and stop their processes on `close()`.
 */
import type { EngineOptions } from '../options.js';
import type { JsSandbox, PythonSandbox } from './types.js';
import { loadSandboxSettings } from './settings.js';
import { PythonSandboxEngine } from './python/engine.js';
import { JsSandboxEngine } from './js/engine.js';

/** Creates the JavaScript sandbox: a pool of forked worker processes running isolated-vm isolates. */
export function createJsSandbox(opts: EngineOptions): JsSandbox & { close(): Promise<void> } {
  const engine = new JsSandboxEngine(loadSandboxSettings(opts.env), opts.log);
  engine.start();
  return engine;
}

/** Creates the Python sandbox: CPython under bubblewrap as an unprivileged uid, a few started ahead. */
export function createPythonSandbox(opts: EngineOptions): PythonSandbox & { close(): Promise<void> } {
  const engine = new PythonSandboxEngine(loadSandboxSettings(opts.env), opts.log);
  engine.prewarm();
  return engine;
}
