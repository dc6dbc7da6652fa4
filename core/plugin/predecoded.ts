/**
 * Base64 fields already decoded off the serving thread (issue 24: a flood of 27 MB JSON bodies
 * kept that thread busy scanning and decoding base64 before anything could refuse them). The
 * HTTP layer parses a large JSON body in a worker thread, which also checks and decodes each long
 * base64 string there; it registers the result here for the request's lifetime, keyed by the
 * string itself, and `fromBase64` uses it instead of scanning the string again. A string not
 * found here (a small body, a value the request changed) is decoded as before, so a missed lookup
 * only costs time, never a different answer.
 */

/** One base64 string as the worker read it. */
export interface Predecoded {
  /** The decoded bytes. */
  data: Buffer;
  /** The `data:` URL's media type, if the string was one. */
  contentType?: string;
  /** Characters of base64 after the prefix and whitespace were dropped (the size check uses it). */
  textLength: number;
}

interface Entry extends Predecoded {
  /** Requests holding this string (two may send the same file). */
  refs: number;
}

// Keyed by the string's value: V8 hashes a long string by its length alone, so a lookup costs one
// comparison with the entry of that length, which ends at once when it is the same string.
const entries = new Map<string, Entry>();

/** Registers decoded strings for one request; call the returned function once it has ended. */
export function rememberDecoded(items: { text: string; decoded: Predecoded }[]): () => void {
  const held: string[] = [];
  for (const { text, decoded } of items) {
    const entry = entries.get(text);
    if (entry) entry.refs += 1;
    else entries.set(text, { ...decoded, refs: 1 });
    held.push(text);
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const text of held) {
      const entry = entries.get(text);
      if (!entry) continue;
      entry.refs -= 1;
      if (entry.refs <= 0) entries.delete(text);
    }
  };
}

/** The decoded form of `text` if a request in flight registered it. */
export function decodedFor(text: string): Predecoded | undefined {
  return entries.get(text);
}

/** Strings registered now (tests: every request gives its entries back). */
export function decodedCount(): number {
  return entries.size;
}

let made = 0;
let rebuilt = 0;

/** {@link DecodedBase64}s made, and strings rebuilt from one, so far (tests: a file read as bytes rebuilds none). */
export function decodedFields(): { made: number; rebuilt: number } {
  return { made, rebuilt };
}

/**
 * How a {@link DecodedBase64} gets its string back: the string's UTF-8 bytes, or, for a string
 * that was exactly Node's base64 of the bytes after an optional `data:` URL prefix (what nearly
 * every client sends; server/body/plain-base64.ts), that prefix: the rest is the
 * bytes' own encoding, so a copy of the string need not be kept (issue 24: keeping one cost the
 * serving thread a megabyte of fresh memory per megabyte of file, and the collections that go
 * with it). Handlers only read an input's bytes; none writes into them.
 */
export type SentText = Buffer | { prefix: string };

/**
 * A base64 file field of a large body, decoded off the serving thread and never turned back into
 * a string there (issue 24: receiving a 27 MB body's strings from the worker cost that thread
 * more than everything else it did for the request). It stands in the input where the string was,
 * only where the string is a file: a plain string field (no pattern, format or length cap the
 * string would have to be read for) beside `inputMethod: 'base64'`; the schema check and the
 * input readers (`fromBase64`, `loadInput`, `loadInputToFile`) accept it as that string. Anything
 * else that meets it gets the string it stands for: `String()`, template text and
 * `JSON.stringify` (a stored input round-trips), or `text()`.
 */
export class DecodedBase64 {
  // Private fields: generic walkers of a body (depth check, blank-field removal) see an object
  // with no properties, not a megabyte Buffer to iterate.
  readonly #data: Buffer;
  readonly #contentType: string | undefined;
  readonly #textLength: number;
  readonly #length: number;
  readonly #sent: SentText;

  /**
   * `data`: the decoded bytes; `contentType`: the `data:` URL's media type, if any; `textLength`:
   * characters of base64 once the prefix and whitespace were dropped; `length`: the string's
   * length as sent; `sent`: how to get the string as sent back (see {@link SentText}).
   */
  constructor(data: Buffer, contentType: string | undefined, textLength: number, length: number, sent: SentText) {
    this.#data = data;
    this.#contentType = contentType;
    this.#textLength = textLength;
    this.#length = length;
    this.#sent = sent;
    made += 1;
  }

  /** The decoded bytes. */
  get data(): Buffer {
    return this.#data;
  }

  /** The `data:` URL's media type, if the string was one. */
  get contentType(): string | undefined {
    return this.#contentType;
  }

  /** Characters of base64 after the prefix and whitespace were dropped (the size check uses it). */
  get textLength(): number {
    return this.#textLength;
  }

  /** Length of the string as sent (the schema's length checks use it). */
  get length(): number {
    return this.#length;
  }

  /** The string as sent, built only when something asks for it. */
  text(): string {
    rebuilt += 1;
    const sent = this.#sent;
    return Buffer.isBuffer(sent) ? sent.toString('utf8') : sent.prefix + this.#data.toString('base64');
  }

  toString(): string {
    return this.text();
  }

  toJSON(): string {
    return this.text();
  }
}

/** The input with every {@link DecodedBase64} in it turned back into its string (arrays and plain objects walked; others kept). */
export function withStrings(value: unknown, depth = 0): unknown {
  if (value instanceof DecodedBase64) return value.text();
  if (depth > 64 || !value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.some((v) => v && typeof v === 'object') ? value.map((v) => withStrings(v, depth + 1)) : value;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withStrings(v, depth + 1);
  return out;
}
