/** The capped output collector (issue 6: "output caps, truncation is reported"). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamCollector } from './output.js';

test('StreamCollector splits lines across chunks and multi-byte characters', () => {
  const c = new StreamCollector(10, 1000);
  const bytes = Buffer.from('héllo\nwor');
  c.push(bytes.subarray(0, 2));
  c.push(bytes.subarray(2));
  c.push(Buffer.from('ld\n\nlast'));
  assert.deepEqual(c.finish(), ['héllo', 'world', '', 'last']);
  assert.equal(c.truncated, false);
});

test('StreamCollector caps lines and bytes and ends with a note', () => {
  const lines = new StreamCollector(3, 1000);
  lines.push(Buffer.from('1\n2\n3\n4\n5\n'));
  const out = lines.finish();
  assert.deepEqual(out.slice(0, 3), ['1', '2', '3']);
  assert.match(out[3]!, /^\[output truncated: the stream is limited to 3 lines and 1000 bytes\]$/);
  const bytes = new StreamCollector(100, 10);
  bytes.push(Buffer.from('x'.repeat(50)));
  const cut = bytes.finish();
  assert.equal(cut[0], 'x'.repeat(9));
  assert.equal(bytes.truncated, true);
});
