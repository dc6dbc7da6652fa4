/** The worker side of large-body parsing: Fastify's refusals, depth, and which strings it decodes. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonBody } from './json-work.js';

const parse = (text: string, minDecode = 8) => parseJsonBody({ chunks: [new Uint8Array(Buffer.from(text))], minDecode });

describe('parseJsonBody', () => {
  it('decodes long base64 strings anywhere in the body (data: URLs and wrapped lines too) and says where each was', () => {
    const bytes = Buffer.from('hello, worker thread');
    const b64 = bytes.toString('base64');
    const out = parse(JSON.stringify({ file: b64, list: [`data:text/plain;base64,${b64.slice(0, 8)}\n${b64.slice(8)}`], note: 'short', other: 'not base64 at all!', n: 1 }));
    assert.equal(out.kind, 'ok');
    if (out.kind !== 'ok') return;
    const found = out.decoded.map((d) => [d.path, d.contentType, d.textLength]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(found, [
      [['file'], undefined, b64.length],
      [['list', 0], 'text/plain', b64.length],
    ]);
    assert.equal(out.buffers.length, 2);
    for (const buf of out.buffers) assert.equal(Buffer.from(buf).toString(), 'hello, worker thread');
  });

  it('leaves strings under the threshold alone', () => {
    const out = parse(JSON.stringify({ file: Buffer.from('hi').toString('base64') }), 1000);
    assert.deepEqual(out.kind === 'ok' && out.decoded, []);
  });

  it('refuses what Fastify\'s parser refuses and flags nesting past the limit', () => {
    assert.equal(parse('{"a":').kind, 'invalid');
    assert.equal(parse('{"__proto__":{"x":1}}').kind, 'invalid');
    assert.equal(parse('{"constructor":{"prototype":{"x":1}}}').kind, 'invalid');
    assert.equal(parse(`{"a":${'['.repeat(65)}${']'.repeat(65)}}`).kind, 'deep');
    assert.equal(parse('\uFEFF{"a":1}').kind, 'ok', 'a byte-order mark is skipped, as Fastify does');
  });

  it('joins the chunks a body arrived in, a character split between two of them included', () => {
    const bytes = Buffer.from(JSON.stringify({ note: 'café ☕', file: Buffer.from('split across chunks').toString('base64') }));
    const cut = bytes.indexOf(Buffer.from('☕')) + 1;
    const out = parseJsonBody({ chunks: [bytes.subarray(0, cut), bytes.subarray(cut, cut + 5), bytes.subarray(cut + 5)].map((b) => new Uint8Array(b)), minDecode: 8 });
    assert.equal(out.kind, 'ok');
    if (out.kind !== 'ok') return;
    assert.equal((out.value as { note: string }).note, 'café ☕');
    assert.equal(Buffer.from(out.buffers[0]!).toString(), 'split across chunks');
  });
});
