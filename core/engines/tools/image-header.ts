/**
 * Image admission before decoding (issue 24, finding 3: a 995 KB 16000×16000 PNG made tesseract
 * take 3.2 GB and ffmpeg 1.1 GB). The size an image declares is read from its header alone,
 * for the six formats the image lanes take; anything else is refused, since what cannot be
 * measured cannot be admitted. A multi-page TIFF counts the pixels of every page (tesseract
 * reads them all).
 */
import { InputError } from '../../errors.js';
import type { ImageHeader } from './types.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** JPEG start-of-frame markers (every SOFn but DHT C4, JPG C8 and DAC CC). */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
/** Pages of a TIFF walked at most; a longer chain is refused. */
const MAX_TIFF_PAGES = 1000;

/** The formats named in messages. */
export const IMAGE_FORMATS_TEXT = 'PNG, JPEG, GIF, WebP, BMP or TIFF';

function png(b: Buffer): ImageHeader | undefined {
  if (b.length < 24 || !b.subarray(0, 8).equals(PNG_SIGNATURE) || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { format: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function jpeg(b: Buffer): ImageHeader | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 3 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    // Markers without a length: TEM, RSTn, SOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined;
    const length = b.readUInt16BE(i + 2);
    if (SOF.has(marker)) {
      if (i + 9 > b.length) return undefined;
      return { format: 'jpeg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return undefined;
}

function gif(b: Buffer): ImageHeader | undefined {
  if (b.length < 10 || !/^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) return undefined;
  return { format: 'gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
}

function webp(b: Buffer): ImageHeader | undefined {
  if (b.length < 30 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WEBP') return undefined;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ' && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
    return { format: 'webp', width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L' && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { format: 'webp', width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
  return undefined;
}

function bmp(b: Buffer): ImageHeader | undefined {
  if (b.length < 26 || b.toString('latin1', 0, 2) !== 'BM') return undefined;
  if (b.readUInt32LE(14) === 12) return { format: 'bmp', width: b.readUInt16LE(18), height: b.readUInt16LE(20) };
  return { format: 'bmp', width: Math.abs(b.readInt32LE(18)), height: Math.abs(b.readInt32LE(22)) };
}

/** A TIFF's pages as one sum: width of the widest and total pixels spread over its height. */
function tiff(b: Buffer): ImageHeader | undefined {
  const tag = b.toString('latin1', 0, 4);
  const le = tag === 'II*\0';
  if (!le && tag !== 'MM\0*') return undefined;
  const u16 = (o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  let offset = u32(4);
  let pixels = 0;
  let widest = 0;
  const seen = new Set<number>();
  for (let page = 0; offset !== 0; page++) {
    if (page >= MAX_TIFF_PAGES || seen.has(offset) || offset + 2 > b.length) return undefined;
    seen.add(offset);
    const entries = u16(offset);
    if (offset + 2 + entries * 12 + 4 > b.length) return undefined;
    let width = 0;
    let height = 0;
    for (let e = 0; e < entries; e++) {
      const at = offset + 2 + e * 12;
      const id = u16(at);
      const value = u16(at + 2) === 3 ? u16(at + 8) : u32(at + 8);
      if (id === 256) width = value;
      if (id === 257) height = value;
    }
    if (!width || !height) return undefined;
    pixels += width * height;
    widest = Math.max(widest, width);
    offset = u32(offset + 2 + entries * 12);
  }
  if (!widest) return undefined;
  return { format: 'tiff', width: widest, height: Math.ceil(pixels / widest) };
}

/** The format and size an image declares, or undefined when it is none of the six formats (or malformed). */
export function readImageHeader(bytes: Uint8Array): ImageHeader | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const h = png(b) ?? jpeg(b) ?? gif(b) ?? webp(b) ?? bmp(b) ?? tiff(b);
    return h && h.width > 0 && h.height > 0 ? h : undefined;
  } catch {
    // A header cut short (RangeError from a read past the end).
    return undefined;
  }
}

/** Megapixels as people read them (`50`, `0.5`). */
function mpx(pixels: number): string {
  return String(Math.round(pixels / 100_000) / 10);
}

/** Admits an image by its header: 400 when it is not one of the six formats or is over `maxPixels`. */
export function admitImage(bytes: Uint8Array, label: string, maxPixels: number): ImageHeader {
  const h = readImageHeader(bytes);
  if (!h) throw new InputError(`'${label}' is not a supported image: send ${IMAGE_FORMATS_TEXT}.`);
  if (h.width * h.height > maxPixels) {
    throw new InputError(`'${label}' is too large: ${h.width}×${h.height} pixels (${mpx(h.width * h.height)} megapixels); images may have at most ${mpx(maxPixels)} megapixels.`);
  }
  return h;
}
