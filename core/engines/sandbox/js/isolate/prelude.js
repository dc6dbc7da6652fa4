// @ts-check
/**
 * First part of the bootstrap every fresh isolate evaluates before the user's code (composed by
 * ../runtime.ts: prelude, inspect, web, wasm, runtime, in one closure). The host callbacks arrive as
 * the closure's `$0`..`$6` (see ../isolate.ts); the built-ins the bootstrap relies on are copied
 * here, before any user code can rewrite them (`Map.prototype.size`, `JSON.stringify`…).
 */
const hostTimer = $0, hostClear = $1, hostFetch = $2, hostRandom = $3, hostUrl = $4, maxLines = $5, maxBytes = $6;
const reflectApply = Reflect.apply, reflectDefine = Reflect.defineProperty;
const uncurry = (fn) => (self, ...args) => reflectApply(fn, self, args);
const _Map = Map, _Promise = Promise, _String = String, _Number = Number, _RangeError = RangeError, _TypeError = TypeError, _Error = Error;
const mapGet = uncurry(Map.prototype.get), mapSet = uncurry(Map.prototype.set), mapHas = uncurry(Map.prototype.has), mapDelete = uncurry(Map.prototype.delete);
const mapSize = uncurry(/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(Map.prototype, 'size')).get);
const split = uncurry(String.prototype.split), strSlice = uncurry(String.prototype.slice);
const stringify = JSON.stringify, parseJson = JSON.parse;
const mathMax = Math.max, mathFloor = Math.floor;
const append = (arr, v) => { reflectDefine(arr, arr.length, /** @type {PropertyDescriptor} */ ({ __proto__: null, value: v, writable: true, enumerable: true, configurable: true })); };
// An error field longer than the host keeps (64 KB) is cut here first, so the copy stays small;
// one character more than the host's cap, so the host still sees it was cut and says so.
const FIELD_PRECUT = 65537;
const clip = (v) => (v.length > FIELD_PRECUT ? strSlice(v, 0, FIELD_PRECUT) : v);
const G = globalThis;
