/**
 * How deep a request's JSON may nest (issue 24 finding 7). JSON.parse copes with any depth, but
 * everything after it that walks a value (blank-field cleaning, schema checks of free-form
 * fields, JSON.stringify into logs and usage rows) recurses; a 60 KB body nested 10,000 levels
 * overflowed the stack. No input of this service needs more than a few levels.
 */

/** The deepest nesting of arrays and objects a request body (or an MCP tool's arguments) may have. */
export const MAX_JSON_DEPTH = 64;

/** The 400 text for a body nested deeper than the limit. */
export const TOO_DEEP_MESSAGE = `Invalid input: JSON nested deeper than ${MAX_JSON_DEPTH} levels.`;

/**
 * True when `value` nests arrays/objects deeper than `limit`. Iterative (an explicit stack of
 * pending values with their depths), so a hostile value cannot overflow the call stack here;
 * it stops at the first value past the limit.
 */
export function nestedDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (!value || typeof value !== 'object') return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children) if (isJsonContainer(child)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * An array or a plain object: what JSON text nests. A large body's file field comes back from
 * its parse as a class instance standing for the string it was (see core/plugin/predecoded.ts),
 * which is no level: counting it refused a file at the 64th level that a small body may send.
 */
function isJsonContainer(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text `bytes` (UTF-8) opens arrays/objects deeper than `limit`, read from
 * the bytes before anything is parsed (issue 24: parsing a 10,000-level body built 10,000
 * arrays only to refuse them, and collecting them cost the serving thread more than the parse).
 * Brackets inside strings do not count; a string is skipped with a native search for its
 * closing quote, so a body made of a long base64 string costs almost nothing here. Agrees with
 * {@link nestedDeeperThan} on every valid body; on invalid JSON it may say either (the body is
 * refused either way, with the depth 400 rather than the invalid-JSON one).
 */
export function textNestedDeeperThan(bytes: Buffer, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      const end = closingQuote(bytes, i);
      // An unterminated string: JSON.parse refuses the body.
      if (end < 0) return false;
      i = end + 1;
      continue;
    }
    // [ and {
    if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
      // ] and }
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
    i += 1;
  }
  return false;
}

/**
 * Index of the quote that closes the JSON string opening at `open` in `bytes` (the first quote
 * after it not escaped by an odd run of backslashes; strings are skipped natively with indexOf),
 * or -1 when the string never ends.
 */
export function closingQuote(bytes: Buffer, open: number): number {
  let end = open;
  for (;;) {
    end = bytes.indexOf(QUOTE, end + 1);
    if (end < 0) return -1;
    let slashes = 0;
    while (bytes[end - 1 - slashes] === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return end;
  }
}
