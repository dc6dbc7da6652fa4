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
