/**
 * Source of the bootstrap that runs inside every fresh isolate before the user's code (spec
 * §4.8, issue 6). It builds the globals a script expects — `console` (log/info/debug → stdout,
 * error/warn → stderr), timers, `fetch`, `TextEncoder`/`TextDecoder`, `atob`/`btoa`,
 * `crypto.getRandomValues`, `URL`/`URLSearchParams` (parsed by the host's WHATWG parser), an empty
 * `process.env`, and a `require` that explains what is missing — from five host callbacks that
 * carry only strings and numbers (a fetch is answered later by the host calling `fetchDone` with
 * a string and the body as a copied ArrayBuffer), so no host object ever enters the isolate. Output is kept inside the isolate with the line and byte caps and handed over
 * once at the end. The closure receives `$0..$6` from `evalClosure` and returns the functions
 * the worker drives (`fire`, `take`, `fetchDone`).
 *
 * User code runs in the same realm afterwards and may rewrite any built-in (`Map.prototype.size`,
 * `JSON.stringify`, `String.prototype.slice`…). So the bootstrap's own bookkeeping uses copies
 * taken before user code runs (`uncurry`), stores output with null-prototype descriptors, and
 * hands `take`'s result over as a structured copy, not JSON. It is still only a first line: the
 * worker counts timers and fetches itself and re-applies every cap to what comes out (issue 6
 * audit, items 1 and 2).
 */
import { INSPECT_SOURCE } from './js-inspect.js';
import { WEB_SOURCE } from './js-web.js';

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

/** Bootstrap source for `context.evalClosure` (arguments: timer, clear, fetch, random, url, maxLines, maxBytes). */
export const RUNTIME_SOURCE = String.raw`
'use strict';
const hostTimer = $0, hostClear = $1, hostFetch = $2, hostRandom = $3, hostUrl = $4, maxLines = $5, maxBytes = $6;
const reflectApply = Reflect.apply, reflectDefine = Reflect.defineProperty;
const uncurry = (fn) => (self, ...args) => reflectApply(fn, self, args);
const _Map = Map, _Promise = Promise, _String = String, _Number = Number, _RangeError = RangeError, _TypeError = TypeError, _Error = Error;
const mapGet = uncurry(Map.prototype.get), mapSet = uncurry(Map.prototype.set), mapHas = uncurry(Map.prototype.has), mapDelete = uncurry(Map.prototype.delete);
const mapSize = uncurry(Object.getOwnPropertyDescriptor(Map.prototype, 'size').get);
const split = uncurry(String.prototype.split), strSlice = uncurry(String.prototype.slice);
const stringify = JSON.stringify, parseJson = JSON.parse;
const mathMax = Math.max, mathFloor = Math.floor;
const append = (arr, v) => { reflectDefine(arr, arr.length, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true }); };
// An error field longer than the host keeps (64 KB) is cut here first, so the copy stays small;
// one character more than the host's cap, so the host still sees it was cut and says so.
const FIELD_PRECUT = 65537;
const clip = (v) => (v.length > FIELD_PRECUT ? strSlice(v, 0, FIELD_PRECUT) : v);
const BUILTINS = new Set(${JSON.stringify(NODE_BUILTINS)});
const builtinMessage = ${builtinMessage.toString()};
const missingPackageMessage = ${missingPackageMessage.toString()};
const G = globalThis;
${INSPECT_SOURCE}
const streams = [[], []];
const used = [0, 0];
const dropped = [0, 0];
function emit(which, text) {
  const arr = streams[which];
  const lines = split(_String(text), '\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const size = line.length + 1;
    if (arr.length >= maxLines || used[which] >= maxBytes) { dropped[which] += size; continue; }
    const room = maxBytes - used[which];
    if (size > room) {
      append(arr, strSlice(line, 0, mathMax(0, room - 1)));
      dropped[which] += size - room;
      used[which] = maxBytes;
      continue;
    }
    append(arr, line);
    used[which] += size;
  }
}
const counts = new _Map();
const times = new _Map();
let groupIndent = '';
const out = (which) => (...args) => emit(which, groupIndent ? format(args).split('\n').map((l) => groupIndent + l).join('\n') : format(args));
const console = {
  log: out(0), info: out(0), debug: out(0), error: out(1), warn: out(1),
  trace: (...args) => emit(1, 'Trace: ' + format(args) + '\n' + String(new Error().stack).split('\n').slice(2).join('\n')),
  dir: (v) => emit(0, inspect(v)),
  assert: (ok, ...args) => { if (!ok) emit(1, 'Assertion failed' + (args.length ? ': ' + format(args) : '')); },
  count: (label = 'default') => { const n = (mapGet(counts, label) || 0) + 1; mapSet(counts, label, n); emit(0, label + ': ' + n); },
  countReset: (label = 'default') => { mapDelete(counts, label); },
  time: (label = 'default') => { mapSet(times, label, Date.now()); },
  timeLog: (label = 'default', ...args) => { if (mapHas(times, label)) emit(0, label + ': ' + (Date.now() - mapGet(times, label)) + 'ms' + (args.length ? ' ' + format(args) : '')); },
  timeEnd: (label = 'default') => { if (mapHas(times, label)) { emit(0, label + ': ' + (Date.now() - mapGet(times, label)) + 'ms'); mapDelete(times, label); } },
  group: (...args) => { if (args.length) emit(0, groupIndent + format(args)); groupIndent += '  '; },
  groupEnd: () => { groupIndent = groupIndent.slice(2); },
  table: (v) => emit(0, inspect(v)),
};
console.groupCollapsed = console.group;

const timers = new _Map();
let nextTimer = 1;
function clampMs(ms) { ms = _Number(ms); return ms >= 1 && ms <= 2147483647 ? mathFloor(ms) : (ms > 2147483647 ? 1 : 0); }
function addTimer(fn, ms, args, repeat) {
  if (typeof fn !== 'function') throw new _TypeError('The "callback" argument must be of type function. Received ' + inspect(fn));
  // Host timers live outside the isolate's heap: the host caps them (10000 pending) and refuses
  // more; this early check only gives the refusal its usual type.
  if (mapSize(timers) >= 10000) throw new _RangeError('Too many pending timers (the sandbox allows 10000)');
  const id = nextTimer++;
  const delay = clampMs(ms);
  try {
    hostTimer(id, delay);
  } catch (e) {
    throw new _RangeError(_String(e && e.message));
  }
  mapSet(timers, id, { __proto__: null, fn, args, repeat, delay });
  return id;
}
function clearTimer(id) {
  if (typeof id === 'object' && id !== null) id = _Number(id);
  if (mapDelete(timers, id)) hostClear(id);
}
let uncaught = null;
function fire(id) {
  const t = mapGet(timers, id);
  if (!t) return '';
  if (!t.repeat) mapDelete(timers, id);
  try {
    reflectApply(t.fn, undefined, t.args);
  } catch (e) {
    if (!uncaught) uncaught = describe(e);
  }
  if (uncaught) return 'E' + uncaught;
  return t.repeat && mapHas(timers, id) ? 'R' + t.delay : '';
}

function describe(e) {
  let name = 'Error', value, traceback = '';
  try {
    if (e instanceof Error || (e && typeof e === 'object' && typeof e.message === 'string' && typeof e.stack === 'string')) {
      name = String(e.name || ctorName(e) || 'Error');
      value = String(e.message);
      traceback = String(e.stack || '');
      const extra = Object.keys(e).filter((k) => k !== 'name' && k !== 'message' && k !== 'stack');
      if (extra.length) traceback += ' ' + inspect(Object.fromEntries(extra.map((k) => [k, e[k]])));
      if (e.cause !== undefined) traceback += '\n  [cause]: ' + (e.cause instanceof Error ? String(e.cause.name) + ': ' + String(e.cause.message) : inspect(e.cause));
    } else {
      value = typeof e === 'string' ? e : inspect(e);
      traceback = 'Uncaught ' + inspect(e);
    }
  } catch (_) {
    value = 'An uninspectable value was thrown.';
  }
  return stringify({ __proto__: null, name: clip(_String(name)), value: clip(_String(value)), traceback: clip(_String(traceback)) });
}

${WEB_SOURCE}
const fetches = new _Map();
function fetchDone(fid, raw, body) {
  const resolve = mapGet(fetches, fid);
  mapDelete(fetches, fid);
  if (resolve) resolve({ __proto__: null, raw, body });
  return uncaught ? 'E' + uncaught : '';
}
async function fetch(input, init = {}) {
  if (mapSize(fetches) >= 16) throw new _TypeError('fetch failed', { cause: new _Error('too many fetches in flight (the sandbox allows 16)') });
  const url = typeof input === 'string' ? input : (input && typeof input.url === 'string' ? input.url : String(input));
  const headers = {};
  new Headers(init.headers).forEach((v, k) => { headers[k] = v; });
  let body = init.body;
  if (body != null && typeof body !== 'string' && !(body instanceof Uint8Array) && !(body instanceof ArrayBuffer)) body = String(body);
  const bytes = body == null ? undefined : (typeof body === 'string' ? utf8Encode(body) : new Uint8Array(body));
  const req = stringify({ url, method: String(init.method || 'GET').toUpperCase(), headers, body: bytes ? bytesToB64(bytes) : undefined });
  // The host counts fetches in flight and bytes itself and refuses past its limits.
  const { raw, body: received } = await new _Promise((resolve, reject) => {
    let fid;
    try {
      fid = hostFetch(req);
    } catch (e) {
      reject(new _TypeError('fetch failed', { cause: new _Error(_String(e && e.message)) }));
      return;
    }
    mapSet(fetches, fid, resolve);
  });
  const res = parseJson(raw);
  if (res.error) {
    throw new TypeError('fetch failed', { cause: new Error(res.error) });
  }
  // The body arrives as an ArrayBuffer of its own (the worker decodes the base64 on the host).
  const r = new Response(received instanceof ArrayBuffer ? new Uint8Array(received) : new Uint8Array(0), { status: res.status, statusText: res.statusText, headers: res.headers, url: res.url });
  return r;
}

function getRandomValues(arr) {
  if (!ArrayBuffer.isView(arr) || arr instanceof Float32Array || arr instanceof Float64Array || arr instanceof DataView) throw new TypeError('The data argument must be an integer-type TypedArray');
  if (arr.byteLength > 65536) throw new RangeError('The ArrayBufferView\'s byte length exceeds the number of bytes of entropy available (65536)');
  const hex = hostRandom(arr.byteLength);
  const view = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
  for (let i = 0; i < view.length; i++) view[i] = parseInt(hex.substr(i * 2, 2), 16);
  return arr;
}
function randomUUID() {
  const b = getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
}

function require(name) {
  name = String(name);
  const bare = name.startsWith('node:') ? name.slice(5) : name;
  const err = new Error(BUILTINS.has(bare.split('/')[0]) || name.startsWith('node:') ? builtinMessage(bare) : missingPackageMessage(name));
  err.code = 'MODULE_NOT_FOUND';
  throw err;
}
const started = Date.now();
const define = (k, v) => Object.defineProperty(G, k, { value: v, writable: true, configurable: true, enumerable: false });
define('console', console);
define('setTimeout', (fn, ms, ...args) => addTimer(fn, ms, args, false));
define('setInterval', (fn, ms, ...args) => addTimer(fn, ms, args, true));
define('setImmediate', (fn, ...args) => addTimer(fn, 0, args, false));
define('clearTimeout', clearTimer);
define('clearInterval', clearTimer);
define('clearImmediate', clearTimer);
define('queueMicrotask', (fn) => { Promise.resolve().then(fn).catch((e) => { if (!uncaught) uncaught = describe(e); }); });
define('structuredClone', (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v))));
define('TextEncoder', TextEncoder);
define('TextDecoder', TextDecoder);
define('atob', atob);
define('btoa', btoa);
define('fetch', fetch);
define('Headers', Headers);
define('URL', URL);
define('URLSearchParams', URLSearchParams);
define('Response', Response);
define('crypto', { getRandomValues, randomUUID });
define('performance', { now: () => Date.now() - started, timeOrigin: started });
define('process', { env: {}, argv: ['node', 'main.js'], platform: 'linux', version: 'v20', versions: {}, nextTick: (fn, ...a) => G.queueMicrotask(() => fn(...a)), cwd: () => '/' });
define('require', require);
define('global', G);
define('self', G);
Object.defineProperty(G, '__sandboxDescribe', { value: describe });
// Copied out structurally by the worker (no JSON.stringify, no toJSON hooks).
function take() {
  return { __proto__: null, stdout: streams[0], stderr: streams[1], dropped: [dropped[0], dropped[1]], uncaught };
}
return { fire, take, fetchDone };
`;
