/**
 * Base64 fields already decoded off the serving thread (issue 24: a flood of 27 MB JSON bodies
 * kept that thread busy scanning and decoding base64 before anything could refuse them). The
 * HTTP layer parses a large JSON body in a worker thread, which also checks and decodes each long
 * base64 string there; it registers the result here for the request's lifetime, keyed by the
 * string itself, and `fromBase64` uses it instead of scanning the string again. A string not
 * found here (a small body, a value the request changed) is decoded as before, so a missed lookup
 * only costs time, never a different answer. On the routes that run a target (`/api/v1`,
 * `/api/v2/run`, MCP) a file field does not come back as a string, nor as bytes: it comes as a
 * {@link DecodedBase64}, its bytes in a file.
 */
import { readFileSync } from 'node:fs';
import { copyFile, readFile } from 'node:fs/promises';

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
let rebuiltSync = 0;
let read = 0;
let readSync = 0;

/**
 * {@link DecodedBase64}s made, strings rebuilt from one (`rebuilt`), and of those, the ones
 * rebuilt with blocking reads (`rebuiltSync`), file fields whose bytes were read into the serving
 * thread's memory (`read`), and of those, the ones read with a blocking read (`readSync`), so far
 * (tests: a file handed to a tool as a file reads none; a handler that needs the bytes, or a
 * check that needs the string, reads them without blocking the thread).
 */
export function decodedFields(): { made: number; rebuilt: number; rebuiltSync: number; read: number; readSync: number } {
  return { made, rebuilt, rebuiltSync, read, readSync };
}

/**
 * Where a decoded file field's bytes are (issue 24: holding ~20 MB of decoded files per large body
 * on the serving thread started full collections there under a flood): the worker that decoded
 * them wrote them to `path`, in the request's body folder (server/body/body-scratch.ts), which
 * lives until the response is closed. `head`: the first bytes, enough to tell most formats and
 * image sizes apart without reading the file.
 */
export interface DecodedFile {
  path: string;
  size: number;
  head: Buffer;
}

/**
 * How a {@link DecodedBase64} gets its string back: the file holding the string's UTF-8 bytes
 * (base64 sent wrapped, URL-safe or unpadded), or, for a string that was exactly Node's base64 of
 * the bytes after an optional `data:` URL prefix (what nearly every client sends;
 * server/body/plain-base64.ts), that prefix: the rest is the bytes' own encoding, read again
 * from the decoded file.
 */
export type SentText = { file: string } | { prefix: string };

/**
 * A base64 file field of a large body, decoded off the serving thread into a file and never
 * turned back into a string there (issue 24: receiving a 27 MB body's strings, and then its
 * decoded bytes, from the worker cost that thread more than everything else it did for the
 * request). It stands in the input where the string was, only where the string is a file: a
 * plain string field (no pattern, format or length cap the string would have to be read for)
 * beside `inputMethod: 'base64'`; the schema check and the input readers (`fromBase64`,
 * `loadInput`, `loadInputToFile`) accept it as that string. Anything else that meets it gets the
 * string it stands for: `String()`, template text and `JSON.stringify` (a stored input
 * round-trips), or `text()`.
 * The file is never handed out: readers get a fresh copy of its bytes (`bytes`) or of the
 * file (`copyTo`), so nothing a handler writes can change what `text()` rebuilds.
 */
export class DecodedBase64 {
  // Private fields: generic walkers of a body (depth check, blank-field removal) see an object
  // with no properties, not a file to iterate.
  readonly #file: DecodedFile;
  readonly #contentType: string | undefined;
  readonly #textLength: number;
  readonly #length: number;
  readonly #sent: SentText;

  /**
   * `file`: where the decoded bytes are; `contentType`: the `data:` URL's media type, if any;
   * `textLength`: characters of base64 once the prefix and whitespace were dropped; `length`: the
   * string's length as sent; `sent`: how to get the string as sent back (see {@link SentText}).
   */
  constructor(file: DecodedFile, contentType: string | undefined, textLength: number, length: number, sent: SentText) {
    this.#file = file;
    this.#contentType = contentType;
    this.#textLength = textLength;
    this.#length = length;
    this.#sent = sent;
    made += 1;
  }

  /** Size of the decoded bytes. */
  get size(): number {
    return this.#file.size;
  }

  /** The first decoded bytes (all of them for a small file): enough to sniff a format or read an image's size. */
  get head(): Buffer {
    return this.#file.head;
  }

  /**
   * The decoded bytes, read from the file now (a fresh copy each time), without blocking the
   * thread (issue 24: a handler that read a 20 MB file with a blocking read stalled every other
   * request meanwhile). Only for readers that need them in memory.
   */
  async bytes(): Promise<Buffer> {
    read += 1;
    return readFile(this.#file.path);
  }

  /**
   * The decoded bytes read with a blocking read: only for a reader that cannot wait (a plugin that
   * still reads `LoadedInput.data` before asking for the bytes with `inputBytes`).
   */
  bytesNow(): Buffer {
    read += 1;
    readSync += 1;
    return readFileSync(this.#file.path);
  }

  /** Copies the decoded bytes to `file` (a handler's scratch file, for a tool), without reading them here. */
  copyTo(file: string): Promise<void> {
    return copyFile(this.#file.path, file);
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

  /**
   * The string as sent, built from the files without blocking the thread (issue 24: up to a
   * body's size read on the serving thread). What the input checks use for a field that is not a
   * file (core/execution/decoded-fields.ts).
   */
  async textAsync(): Promise<string> {
    rebuilt += 1;
    const sent = this.#sent;
    return 'file' in sent ? readFile(sent.file, 'utf8') : sent.prefix + (await readFile(this.#file.path)).toString('base64');
  }

  /**
   * The string as sent, built from the files with blocking reads: only for what cannot wait
   * (`String()`, `JSON.stringify`); the executor's paths use {@link textAsync}.
   */
  text(): string {
    rebuilt += 1;
    rebuiltSync += 1;
    const sent = this.#sent;
    return 'file' in sent ? readFileSync(sent.file, 'utf8') : sent.prefix + readFileSync(this.#file.path).toString('base64');
  }

  toString(): string {
    return this.text();
  }

  toJSON(): string {
    return this.text();
  }
}

/** {@link withStrings} without blocking the thread: each string rebuilt with {@link DecodedBase64.textAsync}. */
export async function withStringsAsync(value: unknown, depth = 0): Promise<unknown> {
  if (value instanceof DecodedBase64) return value.textAsync();
  if (depth > 64 || !value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.some((v) => v && typeof v === 'object') ? Promise.all(value.map((v) => withStringsAsync(v, depth + 1))) : value;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = await withStringsAsync(v, depth + 1);
  return out;
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
