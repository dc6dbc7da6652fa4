/**
 * An image's pixel size from its header, before Tesseract decodes it (issue 24: a 1 MB PNG of
 * 16000×16000 pixels took Tesseract to 3.2 GB). PNG, JPEG, GIF, BMP, WebP and TIFF; undefined
 * when the header cannot be read (Tesseract's own error then speaks).
 */

/** Width and height in pixels. */
export interface PixelSize {
  width: number;
  height: number;
}

function jpeg(d: Buffer): PixelSize | undefined {
  let p = 2;
  while (p + 9 < d.length) {
    if (d[p] !== 0xff) return undefined;
    const marker = d[p + 1]!;
    // Padding bytes and markers without a length.
    if (marker === 0xff) {
      p++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      p += 2;
      continue;
    }
    const len = d.readUInt16BE(p + 2);
    // Start-of-frame markers (all but DHT, JPG, DAC) carry the size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: d.readUInt16BE(p + 5), width: d.readUInt16BE(p + 7) };
    }
    p += 2 + len;
  }
  return undefined;
}

function tiff(d: Buffer): PixelSize | undefined {
  const le = d[0] === 0x49;
  const u16 = (o: number) => (le ? d.readUInt16LE(o) : d.readUInt16BE(o));
  const u32 = (o: number) => (le ? d.readUInt32LE(o) : d.readUInt32BE(o));
  const ifd = u32(4);
  if (ifd + 2 > d.length) return undefined;
  let width: number | undefined;
  let height: number | undefined;
  for (let i = 0, n = u16(ifd); i < n && ifd + 2 + i * 12 + 12 <= d.length; i++) {
    const e = ifd + 2 + i * 12;
    const tag = u16(e);
    const value = u16(e + 2) === 3 ? u16(e + 8) : u32(e + 8);
    if (tag === 256) width = value;
    if (tag === 257) height = value;
  }
  return width !== undefined && height !== undefined ? { width, height } : undefined;
}

function webp(d: Buffer): PixelSize | undefined {
  const kind = d.subarray(12, 16).toString('latin1');
  if (kind === 'VP8X' && d.length >= 30) return { width: 1 + d.readUIntLE(24, 3), height: 1 + d.readUIntLE(27, 3) };
  if (kind === 'VP8L' && d.length >= 25) {
    const bits = d.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (kind === 'VP8 ' && d.length >= 30) return { width: d.readUInt16LE(26) & 0x3fff, height: d.readUInt16LE(28) & 0x3fff };
  return undefined;
}

/** The pixel size `ext` (as sniffed) declares, or undefined. */
export function imageSize(d: Buffer, ext: string): PixelSize | undefined {
  try {
    switch (ext) {
      case 'png':
        return { width: d.readUInt32BE(16), height: d.readUInt32BE(20) };
      case 'jpg':
        return jpeg(d);
      case 'gif':
        return { width: d.readUInt16LE(6), height: d.readUInt16LE(8) };
      case 'bmp':
        return { width: Math.abs(d.readInt32LE(18)), height: Math.abs(d.readInt32LE(22)) };
      case 'webp':
        return webp(d);
      case 'tiff':
        return tiff(d);
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}
