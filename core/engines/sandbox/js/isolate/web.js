// @ts-check
/**
 * The Web-platform classes defined inside each isolate (issue 6: what scripts expect besides
 * console and timers): UTF-8 `TextEncoder`/`TextDecoder`, `atob`/`btoa`, `Headers` and `Response`
 * for `fetch`, and `URL`/`URLSearchParams`, whose parsing is done by the host's WHATWG parser
 * through the `hostUrl` callback (strings in, JSON out). Part of the bootstrap closure composed by
 * ../runtime.ts; uses `inspect` and `quote` from inspect.js and `hostUrl` from prelude.js.
 */
function utf8Encode(str) {
  str = String(str);
  const bytes = [];
  for (let i = 0; i < str.length; i++) {
    let c = str.codePointAt(i);
    if (c > 0xffff) i++;
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return new Uint8Array(bytes);
}
function utf8Decode(bytes) {
  let s = '';
  let chunk = [];
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    let c = 0xfffd, n = 1;
    if (b < 0x80) { c = b; }
    else if (b >= 0xc2 && b < 0xe0 && i + 1 < bytes.length && (bytes[i + 1] & 0xc0) === 0x80) { c = ((b & 31) << 6) | (bytes[i + 1] & 63); n = 2; }
    else if (b >= 0xe0 && b < 0xf0 && i + 2 < bytes.length && (bytes[i + 1] & 0xc0) === 0x80 && (bytes[i + 2] & 0xc0) === 0x80) { c = ((b & 15) << 12) | ((bytes[i + 1] & 63) << 6) | (bytes[i + 2] & 63); n = 3; if (c < 0x800 || (c >= 0xd800 && c <= 0xdfff)) c = 0xfffd; }
    else if (b >= 0xf0 && b < 0xf5 && i + 3 < bytes.length && (bytes[i + 1] & 0xc0) === 0x80 && (bytes[i + 2] & 0xc0) === 0x80 && (bytes[i + 3] & 0xc0) === 0x80) { c = ((b & 7) << 18) | ((bytes[i + 1] & 63) << 12) | ((bytes[i + 2] & 63) << 6) | (bytes[i + 3] & 63); n = 4; if (c < 0x10000 || c > 0x10ffff) c = 0xfffd; }
    chunk.push(c);
    if (chunk.length >= 4096) { s += String.fromCodePoint(...chunk); chunk = []; }
    i += n;
  }
  return s + String.fromCodePoint(...chunk);
}
class TextEncoder {
  get encoding() { return 'utf-8'; }
  encode(s = '') { return utf8Encode(s); }
}
class TextDecoder {
  constructor(label = 'utf-8') {
    if (!/^utf-?8$/i.test(String(label))) throw new RangeError('The "' + label + '" encoding is not supported in the sandbox');
  }
  get encoding() { return 'utf-8'; }
  decode(input) {
    if (input === undefined) return '';
    const bytes = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    let s = utf8Decode(bytes);
    return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
  }
}
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function btoa(s) {
  s = String(s);
  let out = '';
  for (let i = 0; i < s.length; i += 3) {
    const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2);
    if (a > 255 || b > 255 || c > 255) throw new Error('Invalid character');
    const n = (a << 16) | ((b || 0) << 8) | (c || 0);
    out += B64[n >> 18] + B64[(n >> 12) & 63] + (i + 1 < s.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < s.length ? B64[n & 63] : '=');
  }
  return out;
}
function atob(s) {
  s = String(s).replace(/[\t\n\f\r ]/g, '').replace(/=+$/, '');
  if (/[^A-Za-z0-9+/]/.test(s) || s.length % 4 === 1) throw new Error('The string to be decoded is not correctly encoded.');
  let out = '';
  let bits = 0, acc = 0;
  for (const ch of s) {
    acc = (acc << 6) | B64.indexOf(ch);
    bits += 6;
    if (bits >= 8) { bits -= 8; out += String.fromCharCode((acc >> bits) & 255); }
  }
  return out;
}
function bytesToB64(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 8192) bin += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return btoa(bin);
}

class Headers {
  constructor(init) {
    this._h = new Map();
    if (init instanceof Headers) init.forEach((v, k) => this.append(k, v));
    else if (Array.isArray(init)) for (const [k, v] of init) this.append(k, v);
    else if (init && typeof init === 'object') for (const k of Object.keys(init)) this.append(k, init[k]);
  }
  append(k, v) { k = String(k).toLowerCase(); const old = this._h.get(k); this._h.set(k, old === undefined ? String(v) : old + ', ' + v); }
  set(k, v) { this._h.set(String(k).toLowerCase(), String(v)); }
  get(k) { const v = this._h.get(String(k).toLowerCase()); return v === undefined ? null : v; }
  has(k) { return this._h.has(String(k).toLowerCase()); }
  delete(k) { this._h.delete(String(k).toLowerCase()); }
  forEach(fn) { for (const [k, v] of this._h) fn(v, k, this); }
  entries() { return this._h.entries(); }
  keys() { return this._h.keys(); }
  values() { return this._h.values(); }
  [Symbol.iterator]() { return this._h.entries(); }
}
class Response {
  constructor(body, init = {}) {
    this._bytes = body instanceof Uint8Array ? body : utf8Encode(body == null ? '' : String(body));
    this.status = init.status ?? 200;
    this.statusText = init.statusText ?? '';
    this.headers = new Headers(init.headers);
    this.url = init.url ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.redirected = false;
    this.type = 'basic';
    this.bodyUsed = false;
  }
  _take() { if (this.bodyUsed) return Promise.reject(new TypeError('Body is unusable: Body has already been read')); this.bodyUsed = true; return Promise.resolve(this._bytes); }
  text() { return this._take().then(utf8Decode); }
  json() { return this.text().then(JSON.parse); }
  arrayBuffer() { return this._take().then((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)); }
  bytes() { return this._take().then((b) => new Uint8Array(b)); }
}
const INSPECT = Symbol.for('nodejs.util.inspect.custom');
function formEncode(s) {
  return encodeURIComponent(s).replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()).replace(/%20/g, '+');
}
function formDecode(s) {
  s = s.replace(/\+/g, ' ');
  try { return decodeURIComponent(s); } catch (_) { return s; }
}
class URLSearchParams {
  /** @param {any} [init] */
  constructor(init = '') {
    Object.defineProperty(this, '_list', { value: [], writable: true });
    Object.defineProperty(this, '_url', { value: null, writable: true });
    if (typeof init === 'string') this._parse(init);
    else if (init instanceof URLSearchParams) this._list = init._list.map((p) => p.slice());
    else if (init && typeof init[Symbol.iterator] === 'function') for (const [k, v] of init) this._list.push([String(k), String(v)]);
    else if (init && typeof init === 'object') for (const k of Object.keys(init)) this._list.push([k, String(init[k])]);
  }
  _parse(q) {
    /** @type {string[][]} */
    this._list = [];
    for (const part of String(q).replace(/^\?/, '').split('&')) {
      if (!part) continue;
      const i = part.indexOf('=');
      this._list.push(i < 0 ? [formDecode(part), ''] : [formDecode(part.slice(0, i)), formDecode(part.slice(i + 1))]);
    }
  }
  // `_url` is defined hidden in the constructor, where the checker cannot see it.
  _update() { const url = /** @type {any} */ (this)._url; if (url) url._setSearch(this.toString()); }
  get size() { return this._list.length; }
  append(k, v) { this._list.push([String(k), String(v)]); this._update(); }
  delete(k) { k = String(k); this._list = this._list.filter((p) => p[0] !== k); this._update(); }
  get(k) { const p = this._list.find((x) => x[0] === String(k)); return p ? p[1] : null; }
  getAll(k) { return this._list.filter((x) => x[0] === String(k)).map((x) => x[1]); }
  has(k) { return this._list.some((x) => x[0] === String(k)); }
  set(k, v) {
    k = String(k);
    const i = this._list.findIndex((x) => x[0] === k);
    if (i < 0) this._list.push([k, String(v)]);
    else { this._list[i][1] = String(v); this._list = this._list.filter((x, j) => j <= i || x[0] !== k); }
    this._update();
  }
  sort() { this._list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); this._update(); }
  forEach(fn, self) { for (const [k, v] of this._list) fn.call(self, v, k, this); }
  keys() { return this._list.map((p) => p[0])[Symbol.iterator](); }
  values() { return this._list.map((p) => p[1])[Symbol.iterator](); }
  entries() { return this._list.map((p) => [p[0], p[1]])[Symbol.iterator](); }
  [Symbol.iterator]() { return this.entries(); }
  toString() { return this._list.map(([k, v]) => formEncode(k) + '=' + formEncode(v)).join('&'); }
  [INSPECT]() { return 'URLSearchParams {' + (this._list.length ? ' ' + this._list.map(([k, v]) => quote(k) + ' => ' + quote(v)).join(', ') + ' ' : '') + '}'; }
}
const URL_PARTS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
function parseUrl(input, base, field, value) {
  const r = hostUrl(String(input), base === undefined ? undefined : String(base), field, value === undefined ? undefined : String(value));
  if (!r) {
    /** @type {TypeError & { code?: string, input?: string }} */
    const err = new TypeError('Invalid URL');
    err.code = 'ERR_INVALID_URL';
    err.input = String(input);
    throw err;
  }
  return JSON.parse(r);
}
class URL {
  constructor(input, base) {
    Object.defineProperty(this, '_c', { value: parseUrl(input, base), writable: true });
    Object.defineProperty(this, '_sp', { value: null, writable: true });
  }
  static canParse(input, base) { try { parseUrl(input, base); return true; } catch (_) { return false; } }
  _set(field, value) {
    this._c = parseUrl(this._c.href, undefined, field, value);
    if (this._sp && field !== 'search-internal') this._sp._parse(this._c.search);
  }
  _setSearch(s) { this._c = parseUrl(this._c.href, undefined, 'search', s); }
  get searchParams() {
    if (!this._sp) { this._sp = new URLSearchParams(this._c.search); /** @type {any} */ (this._sp)._url = this; }
    return this._sp;
  }
  toString() { return this._c.href; }
  toJSON() { return this._c.href; }
  [INSPECT](depth) {
    const o = {};
    for (const k of URL_PARTS) o[k] = this._c[k];
    o.searchParams = this.searchParams;
    return 'URL ' + inspect(o).replace(/^\{/, '{');
  }
}
for (const k of URL_PARTS) {
  const d = { get() { return this._c[k]; }, configurable: true, enumerable: false };
  if (k !== 'origin') d.set = /** @this {any} */ function (v) { if (k === 'href') { this._c = parseUrl(v); if (this._sp) this._sp._parse(this._c.search); } else this._set(k, v); };
  Object.defineProperty(URL.prototype, k, d);
}
