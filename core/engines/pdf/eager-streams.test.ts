/** Which streams the pre-check reads, and that it stops counting once past the limit. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { eagerFlateStreams, inflatedSize } from './eager-streams.js';

/** One indirect object holding a stream with `dict` and Flate data of `inflated`. */
const obj = (n: number, dict: string, inflated: Buffer, eol = '\n') => {
  const packed = deflateSync(inflated);
  return Buffer.concat([Buffer.from(`${n} 0 obj\n<< ${dict} /Length ${packed.length} >>\nstream${eol}`), packed, Buffer.from('\nendstream\nendobj\n')]);
};

describe('eagerFlateStreams', () => {
  it('finds Flate object and cross-reference streams (CRLF too, filter as a name or a one-item array) and nothing else', async () => {
    const file = Buffer.concat([
      Buffer.from('%PDF-1.7\n'),
      obj(1, '/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', Buffer.from('5 0 null')),
      obj(2, '/Filter /FlateDecode', Buffer.alloc(1000, 0x20)),
      obj(3, '/Type /XObject /Subtype /Image /Width 10 /Height 10 /Filter /FlateDecode', Buffer.alloc(300)),
      obj(4, '/Type/XRef/Size 9/W[1 2 1]/Filter[/FlateDecode]', Buffer.alloc(36, 1), '\r\n'),
      obj(5, '/Type /ObjStm /N 1 /First 4 /Filter [/ASCIIHexDecode /FlateDecode]', Buffer.from('5 0 null')),
      obj(6, '/Type /ObjStmX /Filter /FlateDecode', Buffer.from('not one of them')),
    ]);
    const found = eagerFlateStreams(file);
    assert.equal(found.length, 2, 'the object stream and the cross-reference stream');
    assert.equal(await inflatedSize(found, 1e6), 8 + 36);
  });

  it('stops inflating once past the limit instead of inflating the whole stream', async () => {
    const streams = eagerFlateStreams(obj(1, '/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', Buffer.alloc(64 * 1024 * 1024, 0x20)));
    const counted = await inflatedSize(streams, 1024 * 1024);
    assert.ok(counted > 1024 * 1024, `${counted}`);
    assert.ok(counted < 4 * 1024 * 1024, `counted ${counted} bytes of 64 MB for a 1 MB limit`);
  });

  it('counts what a damaged stream gave before failing, and the streams of a file together', async () => {
    const good = deflateSync(Buffer.alloc(5000, 0x20));
    const cut = good.subarray(0, good.length - 6);
    assert.equal(await inflatedSize([good, good], 1e6), 10_000);
    assert.ok((await inflatedSize([cut], 1e6)) <= 5000);
    assert.equal(await inflatedSize([Buffer.from('not zlib')], 1e6), 0);
  });
});
