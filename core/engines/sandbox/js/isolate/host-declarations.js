// @ts-check
/**
 * For the type checker only (jsconfig.json); never sent to an isolate. It declares what
 * ../runtime.ts puts into the bootstrap closure besides the files of this folder: the closure's
 * parameters `$0`..`$6` (the host callbacks and caps handed to `context.evalClosure` in
 * ../isolate.ts) and the header's constants, taken from the host's own definitions.
 */
/* eslint-disable no-unused-vars, no-var */

/** Arms host timer `id` to fire after `ms` (the host refuses past its cap by throwing). */
/** @type {(id: number, ms: number) => void} */
var $0;
/** Clears host timer `id`. */
/** @type {(id: number) => void} */
var $1;
/** Sends a fetch request (JSON) to the host; returns its fetch id, answered through `fetchDone`. */
/** @type {(req: string) => number} */
var $2;
/** `n` random bytes from the host, as hex. */
/** @type {(n: number) => string} */
var $3;
/** The host's WHATWG URL parse of `input` (optionally after setting `field`), as JSON; '' if invalid. */
/** @type {(input: string, base?: string, field?: string, value?: string) => string} */
var $4;
/** Lines kept per output stream. */
/** @type {number} */
var $5;
/** Bytes kept per output stream. */
/** @type {number} */
var $6;
/** Node built-in module names the sandbox refuses (../runtime.ts NODE_BUILTINS). */
/** @type {Set<string>} */
var BUILTINS;
/** ../runtime.ts builtinMessage. */
/** @type {(name: string) => string} */
var builtinMessage;
/** ../runtime.ts missingPackageMessage. */
/** @type {(name: string) => string} */
var missingPackageMessage;
