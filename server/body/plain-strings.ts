/**
 * Finds the long string values of a JSON text in its bytes, before anything is parsed (issue 24:
 * a large body is nearly all base64 files, and parsing it built each megabyte string twice, once
 * when the bytes became text and once when JSON.parse copied it out, before regular expressions
 * walked it again). Only strings whose bytes are their value are reported: no backslash (so no
 * escape to read) and not a key (the next token is not `:`); the caller reads each from the bytes
 * and puts a short stand-in in its place, which leaves the text's tokens, and so its validity and
 * keys, as they were. Scanned like the depth check (json-depth.ts): a string is skipped with a
 * native search for its closing quote.
 */
import { closingQuote } from '../json-depth.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** One string value: its characters are `bytes[start, end)` (the quotes excluded). */
export interface PlainString {
  start: number;
  end: number;
}

/** JSON's whitespace between tokens. */
function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * The string values of at least `minBytes` bytes in the JSON text `bytes` that hold no backslash
 * and are not object keys, in order. On invalid JSON it reports what it finds; the parse refuses
 * the text either way, since a stand-in changes no token but that string's characters.
 */
export function plainStringValues(bytes: Buffer, minBytes: number): PlainString[] {
  const found: PlainString[] = [];
  const n = bytes.length;
  let i = bytes.indexOf(QUOTE);
  while (i >= 0 && i < n) {
    const end = closingQuote(bytes, i);
    // An unterminated string: JSON.parse refuses the body.
    if (end < 0) return found;
    const start = i + 1;
    if (end - start >= minBytes && bytes.subarray(start, end).indexOf(BACKSLASH) < 0) {
      let next = end + 1;
      while (isSpace(bytes[next])) next += 1;
      if (bytes[next] !== COLON) found.push({ start, end });
    }
    // The next string starts at the next quote outside this one.
    i = bytes.indexOf(QUOTE, end + 1);
  }
  return found;
}
