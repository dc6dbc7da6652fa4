/** Plain base64 read from a body's bytes agrees with the general reading wherever it answers. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { plainBase64 } from './plain-base64.js';
import { base64Text, decodeBase64Text } from '../../core/plugin/inputs.js';

const read = (s: string) => plainBase64(Buffer.from(`"${s}"`, 'latin1'), 1, s.length + 1);

it('reads plain base64 of any length (slices included) as the general reading does, and nothing else', () => {
  const plain: string[] = [];
  for (const n of [1, 2, 3, 1000, 49_151, 49_152, 49_153, 200_001]) {
    const b64 = randomBytes(n).toString('base64');
    plain.push(b64, `data:application/pdf;base64,${b64}`, `DATA:;name=a.pdf;base64,${b64}`);
  }
  for (const s of plain) {
    const got = read(s);
    const general = base64Text(s)!;
    assert.ok(got, s.slice(0, 40));
    assert.deepEqual([got.data, got.contentType, s.length - got.prefix.length], [decodeBase64Text(general.text), general.contentType, general.text.length]);
  }
  const b64 = randomBytes(70_000).toString('base64');
  // Valid for the general reading but not plain (or not base64 at all): left to it.
  const others = ['QR==', 'QQ', ` ${b64}`, `${b64.slice(0, 70_000)}\n${b64.slice(70_000)}`, b64.replace(/\+/g, '-').replace(/\//g, '_'), `${b64.slice(0, 8)}=${b64.slice(9)}`, `${b64.slice(0, -4)}*AAA`, `data:${'x'.repeat(600)};base64,${b64}`, 'é'.repeat(8)];
  for (const s of others) assert.equal(read(s), undefined, s.slice(0, 40));
});
