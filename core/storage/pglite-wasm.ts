/**
 * PGlite's WebAssembly (9 MB), compiled once per process and handed to every database thread.
 * Left to itself each thread compiles it again (0.3-0.7 s of CPU per start, measured), which is
 * most of what a short-lived embedded instance costs the test suite. A compiled
 * `WebAssembly.Module` is shareable between threads of one process, so workers only instantiate it.
 */
import { readFile } from 'node:fs/promises';
import { retriedOnce } from '../util/retried-once.js';

/**
 * The compiled `pglite.wasm` of the installed PGlite (the file PGlite itself would load). A failed
 * compile is not kept: the next start tries again and reports its own error.
 */
export const pgliteWasmModule: () => Promise<WebAssembly.Module> = retriedOnce(() =>
  readFile(new URL('./pglite.wasm', import.meta.resolve('@electric-sql/pglite'))).then((bytes) => WebAssembly.compile(bytes)),
);
