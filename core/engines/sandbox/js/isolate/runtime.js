// @ts-check
/**
 * The bootstrap's globals (composed last by ../runtime.ts, after prelude, inspect, web and wasm):
 * `console` with its capped output streams, timers driven by the host, the error description
 * the worker reads, `fetch` over the host callback, `crypto`, `require` that explains what is
 * missing, and `take`, which hands the output over once at the end. `RUNTIME_EXPORTS` is what
 * the closure returns to the worker (`fire`, `take`, `fetchDone`).
 */
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
  } catch (/** @type {any} */ e) {
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
    } catch (/** @type {any} */ e) {
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
  const b = /** @type {Uint8Array} */ (getRandomValues(new Uint8Array(16)));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
}

function require(name) {
  name = String(name);
  const bare = name.startsWith('node:') ? name.slice(5) : name;
  /** @type {Error & { code?: string }} */
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
const RUNTIME_EXPORTS = { fire, take, fetchDone };
