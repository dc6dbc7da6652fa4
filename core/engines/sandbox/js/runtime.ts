/**
 * The bootstrap that runs inside every fresh isolate before the user's code (spec §4.8, issue 6),
 * composed from the files of `isolate/` (real JavaScript, type-checked with isolate/jsconfig.json).
 * It builds the globals a script expects — `console` (log/info/debug → stdout, error/warn →
 * stderr), timers, `fetch`, `TextEncoder`/`TextDecoder`, `atob`/`btoa`, `crypto.getRandomValues`,
 * `URL`/`URLSearchParams` (parsed by the host's WHATWG parser), an empty `process.env`, and a
 * `require` that explains what is missing — from five host callbacks that carry only strings and
 * numbers (a fetch is answered later by the host calling `fetchDone` with a string and the body as
 * a copied ArrayBuffer), so no host object ever enters the isolate. Output is kept inside the
 * isolate with the line and byte caps and handed over once at the end. The closure receives
 * `$0..$6` from `evalClosure` and returns the functions the worker drives (`fire`, `take`,
 * `fetchDone`).
 *
 * User code runs in the same realm afterwards and may rewrite any built-in (`Map.prototype.size`,
 * `JSON.stringify`, `String.prototype.slice`…). So the bootstrap's own bookkeeping uses copies
 * taken before user code runs (`uncurry` in isolate/prelude.js), stores output with
 * null-prototype descriptors, and hands `take`'s result over as a structured copy, not JSON. It is
 * still only a first line: the worker counts timers and fetches itself and re-applies every cap to
 * what comes out (issue 6 audit, items 1 and 2).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Node built-in module names (without `node:`) the sandbox refuses with a clear message. */
export const NODE_BUILTINS = [
  'assert', 'async_hooks', 'buffer', 'child_process', 'cluster', 'console', 'constants', 'crypto', 'dgram',
  'diagnostics_channel', 'dns', 'domain', 'events', 'fs', 'http', 'http2', 'https', 'inspector', 'module', 'net',
  'os', 'path', 'perf_hooks', 'process', 'punycode', 'querystring', 'readline', 'repl', 'stream', 'string_decoder',
  'sys', 'timers', 'tls', 'trace_events', 'tty', 'url', 'util', 'v8', 'vm', 'wasi', 'worker_threads', 'zlib',
];

/** The message a run gets when it asks for a Node built-in (issue 6: "fail with a clear error"). */
export function builtinMessage(name: string): string {
  return `Cannot use Node built-in module '${name}': the JavaScript sandbox runs code in a V8 isolate without Node APIs (available: console, timers, fetch, TextEncoder/TextDecoder, atob/btoa, crypto.getRandomValues).`;
}

/** The message for a package that was not installed with `commands`. */
export function missingPackageMessage(name: string): string {
  return `Cannot find package '${name}'. Install it with the commands field, e.g. "npm install ${name}".`;
}

/** The files of `isolate/` in the order the closure evaluates them (later ones use earlier ones). */
export const ISOLATE_FILES = ['prelude.js', 'inspect.js', 'web.js', 'wasm.js', 'runtime.js'] as const;

/**
 * The bootstrap source for `context.evalClosure` (arguments: timer, clear, fetch, random, url,
 * maxLines, maxBytes), read from `dir` (the `isolate/` folder, or its copy in a worker's sandbox).
 * The header defines what isolate/host-declarations.js declares for the checker: the built-in list
 * and the two messages, from this file's own definitions, so host and isolate say the same.
 */
export function runtimeSource(dir: string): string {
  // 'use strict' must open the closure body: the whole bootstrap runs in strict mode.
  const header = [
    "'use strict';",
    `const BUILTINS = new Set(${JSON.stringify(NODE_BUILTINS)});`,
    `const builtinMessage = ${builtinMessage.toString()};`,
    `const missingPackageMessage = ${missingPackageMessage.toString()};`,
  ];
  const files = ISOLATE_FILES.map((f) => readFileSync(join(dir, f), 'utf8'));
  return [...header, ...files, 'return RUNTIME_EXPORTS;', ''].join('\n');
}
