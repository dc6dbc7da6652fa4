/** `hugePng` on its own (issue 29): the declared size is what the engine's header reader sees, in a few KB, with a valid header checksum. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hugePng } from './huge-png.js';
import { pngSize, solidPng } from './png.js';
import { readImageHeader } from '../engines/tools/image-header.js';

test('declares width × height but stays small', () => {
  const png = hugePng(16384, 16384);
  assert.deepEqual(pngSize(png), [16384, 16384]);
  assert.deepEqual(readImageHeader(png), { format: 'png', width: 16384, height: 16384 });
  assert.ok(png.length < 64 * 1024, `${png.length} bytes`);
});

test('its header chunk, checksum included, is that of a real PNG of that size', () => {
  // Bytes 8–33: IHDR's length, type, data and CRC.
  assert.deepEqual(hugePng(8, 100, 4).subarray(8, 33), solidPng(8, 100).subarray(8, 33));
});
