/**
 * Reads a string of a body that is plain base64, straight from the body's bytes (issue 24: the
 * worker that parses large bodies spent more time collecting megabyte strings than decoding
 * them). Plain: exactly what Node writes for some bytes (standard alphabet, padded, no
 * whitespace), after an optional `data:` URL prefix; what nearly every client sends. Decoded and
 * checked a slice at a time, so no string longer than a slice is ever made. Where it answers,
 * the general reading (core/plugin/inputs.ts `base64Text`, `decodeBase64Text`) gives the same
 * text, media type and bytes, since what Node writes has no whitespace, only the standard
 * alphabet and a length that is a multiple of four; anything else is left to that reading.
 */
import { DATA_URL } from '../../core/plugin/inputs.js';

/** Base64 characters per slice (a multiple of 4), and the bytes they stand for. */
const SLICE_CHARS = 64 * 1024;
const SLICE_BYTES = (SLICE_CHARS / 4) * 3;
/** Where a `data:` URL's prefix must end (a longer one is read the general way). */
const MAX_PREFIX = 512;
const EQUALS = 0x3d;

/** A string read as plain base64: its bytes, the `data:` URL's media type and prefix (`''` if none). */
export interface PlainBase64 {
  data: Buffer;
  contentType?: string;
  prefix: string;
}

/**
 * `bytes[start, end)` (a JSON string's characters, with no backslash) read as plain base64, or
 * undefined when they are anything else. The decoded bytes own their memory (they can be moved
 * to another thread).
 */
export function plainBase64(bytes: Buffer, start: number, end: number): PlainBase64 | undefined {
  const head = bytes.toString('latin1', start, Math.min(end, start + MAX_PREFIX));
  const dataUrl = DATA_URL.exec(head);
  // A prefix that does not end within the head: not what this reads.
  if (!dataUrl && /^data:/i.test(head)) return undefined;
  const prefix = dataUrl?.[0] ?? '';
  const from = start + prefix.length;
  const chars = end - from;
  if (chars % 4 !== 0) return undefined;
  const pad = chars === 0 ? 0 : bytes[end - 1] !== EQUALS ? 0 : bytes[end - 2] !== EQUALS ? 1 : 2;
  const size = (chars / 4) * 3 - pad;
  const data = Buffer.allocUnsafeSlow(size);
  let written = 0;
  for (let at = from; at < end; at += SLICE_CHARS) {
    // Node's decoder skips what is not base64: the check below catches any such character.
    written += data.write(bytes.toString('latin1', at, Math.min(end, at + SLICE_CHARS)), written, 'base64');
  }
  if (written !== size) return undefined;
  // Plain only if encoding the bytes gives the characters back, slice by slice.
  const scratch = Buffer.allocUnsafe(SLICE_CHARS);
  let at = from;
  for (let i = 0; i < size || at < end; i += SLICE_BYTES) {
    const n = scratch.write(data.toString('base64', i, Math.min(size, i + SLICE_BYTES)), 0, 'latin1');
    if (n === 0 || at + n > end || scratch.compare(bytes, at, at + n, 0, n) !== 0) return undefined;
    at += n;
  }
  return { data, contentType: dataUrl?.[1] || undefined, prefix };
}
