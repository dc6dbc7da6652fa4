// @ts-check
/**
 * The value formatter that runs *inside* each isolate, so `console.log({ a: 1 })` prints
 * `{ a: 1 }` the way Node does (issue 6: "objects printed like Node does") without handing any
 * host object to the isolate. It defines `inspect(value)` and `format(args)` (plus `quote` and
 * `ctorName`, which web.js and runtime.js use) in the bootstrap closure composed by ../runtime.ts.
 * Written for this project: it follows Node's visible conventions (quotes, `[Object]` past depth
 * 2, `[Circular *1]`, `Map(1) { 'a' => 1 }`, 80-column line breaking, long arrays in aligned
 * columns) without reproducing Node's implementation.
 */
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BREAK = 80;
function quote(s) {
  let q = "'";
  if (s.includes("'")) q = !s.includes('"') ? '"' : (!s.includes('\x60') ? '\x60' : "'");
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch === q || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0').toUpperCase();
    else out += ch;
  }
  return q + out + q;
}
function keyText(k) {
  if (typeof k === 'symbol') return '[' + k.toString() + ']';
  return IDENT.test(k) ? k : quote(k);
}
function ctorName(v) {
  let p = Object.getPrototypeOf(v);
  if (p === null) return null;
  while (p) {
    const d = Object.getOwnPropertyDescriptor(p, 'constructor');
    if (d && typeof d.value === 'function' && typeof d.value.name === 'string' && d.value.name !== '') return d.value.name;
    p = Object.getPrototypeOf(p);
  }
  return '';
}
function fnText(f) {
  const src = Function.prototype.toString.call(f);
  const name = f.name;
  if (/^class[\s{]/.test(src)) return '[class ' + (name || '(anonymous)') + ']';
  let kind = 'Function';
  const tag = f[Symbol.toStringTag];
  if (tag === 'AsyncFunction') kind = 'AsyncFunction';
  else if (tag === 'GeneratorFunction') kind = 'GeneratorFunction';
  else if (tag === 'AsyncGeneratorFunction') kind = 'AsyncGeneratorFunction';
  return '[' + kind + (name ? ': ' + name : ' (anonymous)') + ']';
}
function errText(e) {
  let s;
  try { s = typeof e.stack === 'string' && e.stack ? e.stack : String(e); } catch (_) { s = '[Error]'; }
  return s;
}
function primitive(v, top) {
  switch (typeof v) {
    case 'string': return top ? v : quote(v);
    case 'number': return Object.is(v, -0) ? '-0' : String(v);
    case 'bigint': return String(v) + 'n';
    case 'boolean': return String(v);
    case 'undefined': return 'undefined';
    case 'symbol': return v.toString();
  }
  return v === null ? 'null' : undefined;
}
// Arrays of more than six short items are laid out in aligned columns, as Node does: about as
// many columns as make the block roughly square (a character counted 2.5 times as tall as
// wide), never wider than the line, at most 12 (Node's compact level 3 times 4) or 15 columns;
// numbers are right-aligned, anything else left-aligned.
function columns(cells, raw, indent) {
  let count = cells.length;
  if (count > 0 && /^\.\.\. \d+ more item/.test(cells[count - 1])) count--;
  const lens = cells.slice(0, count).map((c) => c.length);
  const widest = Math.max(0, ...lens);
  const cell = widest + 2;
  const total = lens.reduce((a, l) => a + l + 2, 0);
  if (!(cell * 3 + indent < BREAK && (total / cell > 5 || widest <= 6))) return cells;
  const bias = Math.sqrt(cell - total / cells.length);
  const biased = Math.max(cell - 3 - bias, 1);
  const cols = Math.min(Math.round(Math.sqrt(2.5 * biased * count) / biased), Math.floor((BREAK - indent) / cell), 12, 15);
  if (cols <= 1) return cells;
  const width = [];
  for (let c = 0; c < cols; c++) {
    let w = 0;
    for (let j = c; j < count; j += cols) w = Math.max(w, lens[j]);
    width.push(w + 2);
  }
  const numeric = raw !== undefined && Array.prototype.every.call(raw, (x) => typeof x === 'number' || typeof x === 'bigint');
  const rows = [];
  for (let i = 0; i < count; i += cols) {
    const end = Math.min(i + cols, count);
    let row = '';
    for (let j = i; j < end - 1; j++) row += numeric ? (cells[j] + ', ').padStart(width[j - i]) : (cells[j] + ', ').padEnd(width[j - i]);
    row += numeric ? cells[end - 1].padStart(width[end - 1 - i] - 2) : cells[end - 1];
    rows.push(row);
  }
  if (count < cells.length) rows.push(cells[count]);
  return rows;
}
// One line when it fits in 80 columns with Node's margins, otherwise one entry per line, each
// nested block already indented for its depth.
function join(prefix, entries, open, close, indent, raw) {
  if (entries.length === 0) return prefix + open + close;
  const base = prefix.trimEnd();
  let cells = entries;
  if (raw !== undefined && entries.length > 6) cells = columns(entries, raw, indent);
  if (cells === entries) {
    const width = entries.reduce((a, e) => a + e.length, 0) + 2 * entries.length + indent + open.length + base.length + 10;
    if (width <= BREAK && !entries.some((e) => e.includes('\n'))) return prefix + open + ' ' + entries.join(', ') + ' ' + close;
  }
  const pad = '\n' + ' '.repeat(indent + 2);
  return prefix + open + pad + cells.join(',' + pad) + '\n' + ' '.repeat(indent) + close;
}
function inspect(value) {
  const seen = [];
  const refs = new Map();
  let nextRef = 1;
  function ref(obj) {
    if (!refs.has(obj)) refs.set(obj, nextRef++);
    return refs.get(obj);
  }
  function props(obj, skipIndex, depth, indent) {
    const out = [];
    for (const k of Reflect.ownKeys(obj)) {
      if (skipIndex && typeof k === 'string' && /^(0|[1-9][0-9]*)$/.test(k)) continue;
      const d = Object.getOwnPropertyDescriptor(obj, k);
      if (!d || !d.enumerable) continue;
      let v;
      if ('value' in d) v = fmt(d.value, depth + 1, indent + 2);
      else v = d.get ? (d.set ? '[Getter/Setter]' : '[Getter]') : '[Setter]';
      out.push(keyText(k) + ': ' + v);
    }
    return out;
  }
  function fmt(v, depth, indent) {
    const p = primitive(v, depth === 0);
    if (p !== undefined) return p;
    if (typeof v === 'function') {
      const base = fnText(v);
      if (seen.includes(v)) return '[Circular *' + ref(v) + ']';
      seen.push(v);
      const extra = depth > 2 ? [] : props(v, false, depth, indent).filter((e) => !/^(prototype|length|name):/.test(e));
      seen.pop();
      return extra.length ? join(base + ' ', extra, '{', '}', indent) : base;
    }
    if (seen.includes(v)) return '[Circular *' + ref(v) + ']';
    const custom = v[Symbol.for('nodejs.util.inspect.custom')];
    if (typeof custom === 'function') {
      const r = custom.call(v, 2 - depth, {}, inspect);
      if (typeof r === 'string') return r;
      if (r !== v) return fmt(r, depth, indent);
    }
    if (v instanceof Error) return errText(v);
    if (v instanceof Date) return isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof Promise) return 'Promise { <pending> }';
    if (v instanceof WeakMap || v instanceof WeakSet) return (v instanceof WeakMap ? 'WeakMap' : 'WeakSet') + ' { <items unknown> }';
    const name = ctorName(v);
    const isArr = Array.isArray(v);
    if (depth > 2) {
      if (isArr) return '[Array]';
      return '[' + (name === null ? 'Object: null prototype' : (name || 'Object')) + ']';
    }
    seen.push(v);
    let s;
    try {
      if (isArr) {
        const items = [];
        let holes = 0;
        const n = Math.min(v.length, 100);
        for (let i = 0; i < n; i++) {
          if (!(i in v)) { holes++; continue; }
          if (holes) { items.push('<' + holes + ' empty item' + (holes > 1 ? 's' : '') + '>'); holes = 0; }
          items.push(fmt(v[i], depth + 1, indent + 2));
        }
        if (holes) items.push('<' + holes + ' empty item' + (holes > 1 ? 's' : '') + '>');
        if (v.length > 100) items.push('... ' + (v.length - 100) + ' more item' + (v.length - 100 > 1 ? 's' : ''));
        items.push(...props(v, true, depth, indent));
        const prefix = name && name !== 'Array' ? name + '(' + v.length + ') ' : '';
        s = join(prefix, items, '[', ']', indent, v);
      } else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
        const typed = /** @type {Uint8Array} */ (v);
        const items = Array.from(typed.slice(0, 100), (x) => primitive(x, false));
        if (typed.length > 100) items.push('... ' + (typed.length - 100) + ' more items');
        s = join(name + '(' + typed.length + ') ', items, '[', ']', indent, v);
      } else if (v instanceof ArrayBuffer) {
        const bytes = Array.from(new Uint8Array(v).slice(0, 50), (b) => b.toString(16).padStart(2, '0')).join(' ');
        s = 'ArrayBuffer { [Uint8Contents]: <' + bytes + (v.byteLength > 50 ? ' ... ' + (v.byteLength - 50) + ' more bytes' : '') + '>, byteLength: ' + v.byteLength + ' }';
      } else if (v instanceof Map) {
        const items = [];
        for (const [k, x] of v) items.push(fmt(k, depth + 1, indent + 2) + ' => ' + fmt(x, depth + 1, indent + 2));
        s = join((name || 'Map') + '(' + v.size + ') ', items.concat(props(v, false, depth, indent)), '{', '}', indent);
      } else if (v instanceof Set) {
        const items = [];
        for (const x of v) items.push(fmt(x, depth + 1, indent + 2));
        s = join((name || 'Set') + '(' + v.size + ') ', items.concat(props(v, false, depth, indent)), '{', '}', indent);
      } else if (v instanceof Number || v instanceof String || v instanceof Boolean) {
        s = '[' + (name || 'Object') + ': ' + primitive(v.valueOf(), false) + ']';
      } else {
        const entries = props(v, false, depth, indent);
        const tag = v[Symbol.toStringTag];
        let prefix = '';
        if (name === null) prefix = '[Object: null prototype] ';
        else if (name !== 'Object') prefix = (name || 'Object') + ' ';
        if (typeof tag === 'string' && tag !== name) prefix = (prefix ? prefix.slice(0, -1) : 'Object') + ' [' + tag + '] ';
        s = join(prefix, entries, '{', '}', indent);
      }
    } finally {
      seen.pop();
    }
    if (refs.has(v)) s = '<ref *' + refs.get(v) + '> ' + s;
    return s;
  }
  try {
    return fmt(value, 0, 0);
  } catch (e) {
    return '[uninspectable value]';
  }
}
function format(args) {
  if (args.length === 0) return '';
  let out = '';
  let rest = 0;
  const first = args[0];
  if (typeof first === 'string' && first.includes('%') && args.length > 1) {
    let i = 1;
    rest = 1;
    out = first.replace(/%([sdifjoOc%])/g, (m, c) => {
      if (c === '%') return '%';
      if (i >= args.length) return m;
      const a = args[i++];
      rest = i;
      switch (c) {
        case 's': return typeof a === 'string' ? a : (typeof a === 'bigint' ? a + 'n' : (typeof a === 'object' && a !== null ? inspect(a) : String(a)));
        case 'd': case 'i': {
          if (typeof a === 'bigint') return a + 'n';
          const n = Number(a);
          return String(c === 'i' ? Math.trunc(n) : n);
        }
        case 'f': return String(parseFloat(a));
        case 'j': try { return JSON.stringify(a); } catch (_) { return '[Circular]'; }
        case 'o': case 'O': return inspect(a);
        case 'c': return '';
      }
      return m;
    });
  } else {
    out = typeof first === 'string' ? first : inspect(first);
    rest = 1;
  }
  for (let i = rest; i < args.length; i++) out += ' ' + (typeof args[i] === 'string' ? args[i] : inspect(args[i]));
  return out;
}
