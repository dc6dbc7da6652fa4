/**
 * The pixel size of a PNG, JPEG or WebP image read from its own bytes (screenshots in any of the
 * formats the screenshot capability offers), so the answer states what the file really is.
 */

/** Width and height of the image, or nothing when the bytes are none of the three formats. */
export function imageSize(img: Uint8Array): { width?: number; height?: number } {
  const b = Buffer.from(img.buffer, img.byteOffset, img.byteLength);
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 30 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return webpSize(b);
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b);
  return {};
}

function webpSize(b: Buffer): { width?: number; height?: number } {
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return {};
}

function jpegSize(b: Buffer): { width?: number; height?: number } {
  // Walk the segments to the first start-of-frame marker (SOF0-SOF15 but DHT, JPG and DAC).
  let off = 2;
  while (off + 9 < b.length) {
    if (b[off] !== 0xff) return {};
    const marker = b[off + 1]!;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      off += 2;
      continue;
    }
    const len = b.readUInt16BE(off + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: b.readUInt16BE(off + 5), width: b.readUInt16BE(off + 7) };
    }
    off += 2 + len;
  }
  return {};
}
