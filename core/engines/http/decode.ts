/**
 * Body decoding for the HTTP engine (issue 4: "charset decoding, gzip/br"): content-encoding
 * streams and the text charset, taken from the header, a byte-order mark or an HTML `<meta>`.
 */
import zlib from 'node:zlib';
import type { Transform } from 'node:stream';

/** A decompressing stream for a `Content-Encoding` value, or undefined for identity/unknown. */
export function decoderFor(encoding: string | undefined): Transform | undefined {
  const enc = (encoding ?? '').trim().toLowerCase();
  // Lenient flushes: many servers truncate the final block, and browsers still show the page.
  if (enc === 'gzip' || enc === 'x-gzip') return zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  if (enc === 'deflate') return zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  if (enc === 'br') return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  return undefined;
}

/** The charset named by a `Content-Type` header, lower-case, if any. */
export function charsetOfContentType(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m ? m[1]!.toLowerCase() : undefined;
}

/** The charset declared in the first 1024 bytes of an HTML document (`<meta charset>` or http-equiv). */
export function sniffHtmlCharset(body: Uint8Array): string | undefined {
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, 1024)).toString('latin1');
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_:.-]+)/i.exec(head);
  return m ? m[1]!.toLowerCase() : undefined;
}

function bomCharset(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** True when `body` holds non-ASCII bytes and all of it is well-formed UTF-8. */
export function isNonAsciiUtf8(body: Uint8Array): boolean {
  try {
    // Every non-ASCII character takes two or more bytes: fewer characters than bytes means some.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body).length !== body.byteLength;
  } catch {
    return false;
  }
}

/**
 * The charset of a text body: BOM first (it is authoritative), then the header's charset, then
 * an HTML meta declaration, then UTF-8. A meta declaration naming another charset loses to bytes
 * that are valid UTF-8 with non-ASCII in them (issue 27): pages saved as UTF-8 from a template
 * that still says `windows-1252` are common, and bytes outside ASCII are almost never valid UTF-8
 * by accident, so trusting the meta there turned every accented letter into mojibake.
 */
export function textCharset(body: Uint8Array, contentType: string | undefined): string {
  const isHtml = /html|xml/i.test(contentType ?? '');
  const declared = bomCharset(body) ?? charsetOfContentType(contentType);
  if (declared) return declared;
  const meta = isHtml ? sniffHtmlCharset(body) : undefined;
  if (meta && !/^utf-?8$/.test(meta) && isNonAsciiUtf8(body)) return 'utf-8';
  return meta ?? 'utf-8';
}

/** windows-1252's characters for bytes 0x80-0x9F (the rest of its range is Latin-1). */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/**
 * Whether `label` means windows-1252. The Encoding Standard maps latin1, iso-8859-1 and ascii to
 * it as well, and Node's TextDecoder decodes all of them as plain Latin-1, which turns the
 * typographic quotes, dashes and € of such pages into control characters: decoded here instead.
 */
export function isWindows1252(label: string): boolean {
  return ['windows-1252', 'cp1252', 'x-cp1252', 'latin1', 'iso-8859-1', 'iso8859-1', 'iso_8859-1', 'l1', 'ascii', 'us-ascii', 'cp819', 'ibm819'].includes(label.trim().toLowerCase());
}

/** The 256 characters of a single-byte charset in byte order, or undefined when `label` is not one (or unknown). */
export function singleByteCharacters(label: string): string[] | undefined {
  if (isWindows1252(label)) return Array.from({ length: 256 }, (_, b) => String.fromCharCode(b >= 0x80 && b < 0xa0 ? CP1252_HIGH[b - 0x80]! : b));
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    return undefined;
  }
  const chars = Array.from({ length: 256 }, (_, b) => decoder.decode(Uint8Array.of(b)));
  // A multi-byte charset decodes lone high bytes to U+FFFD: not 256 distinct characters.
  return new Set(chars).size === 256 ? chars : undefined;
}

/** Decodes a body as text in its {@link textCharset}. Unknown labels fall back to UTF-8 rather than failing. */
export function decodeText(body: Uint8Array, contentType: string | undefined): string {
  const label = textCharset(body, contentType);
  if (isWindows1252(label)) {
    const chars = singleByteCharacters(label)!;
    let out = '';
    for (let i = 0; i < body.length; i += 8192) out += Array.from(body.subarray(i, i + 8192), (b) => chars[b]).join('');
    return out;
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(body);
}
