/**
 * A PNG that claims to be huge (issue 29): its header declares `width`×`height` but it holds only a
 * few rows, so a test of image admission (IMAGE_MAX_PIXELS) sends a "decompression bomb" of a few
 * KB instead of building one. The header's checksum is right, so only the size gives it away.
 */
import zlib from 'node:zlib';
import { solidPng } from './png.js';

/** Offsets in a PNG: IHDR's type and data start at 12, its height at 20, its CRC at 29. */
const IHDR = 12;
const HEIGHT = 20;
const IHDR_CRC = 29;

/** A grey PNG declaring `width`×`height`, with pixel data for its first `rows` rows only. */
export function hugePng(width: number, height: number, rows = 16): Buffer {
  const png = solidPng(width, Math.min(rows, height));
  png.writeUInt32BE(height, HEIGHT);
  png.writeUInt32BE(zlib.crc32(png.subarray(IHDR, IHDR_CRC)) >>> 0, IHDR_CRC);
  return png;
}
