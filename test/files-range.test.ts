/** The download route's reading of a `Range` header (one range; anything else serves the whole file). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRange } from '../server/files.js';

test('one byte range is read in its three forms, clipped to the file', () => {
  assert.deepEqual(parseRange('bytes=0-9', 100), { start: 0, end: 9 });
  assert.deepEqual(parseRange('bytes=90-', 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange('bytes=-10', 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange('bytes=-500', 100), { start: 0, end: 99 });
  assert.deepEqual(parseRange('bytes=95-200', 100), { start: 95, end: 99 });
});

test('a range past the end is unsatisfiable; other forms get the whole file', () => {
  assert.equal(parseRange('bytes=100-', 100), 'unsatisfiable');
  assert.equal(parseRange('bytes=-0', 100), 'unsatisfiable');
  assert.equal(parseRange('bytes=0-', 0), 'unsatisfiable');
  for (const h of [undefined, '', 'bytes=-', 'bytes=5-2', 'bytes=0-1,4-5', 'items=0-1', 'bytes=a-b']) assert.equal(parseRange(h, 100), undefined, String(h));
});
