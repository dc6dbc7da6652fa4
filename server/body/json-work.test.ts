/** The worker side of large-body parsing: Fastify's refusals, depth, and which strings it decodes. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEAD_BYTES, parseJsonBody } from './json-work.js';

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

  it('reads plain base64 values from the bytes, and gives every string and refusal JSON.parse would', () => {
    const file = Buffer.from('a file of some bytes, plain base64 once encoded');
    const b64 = file.toString('base64');
    const wrapped = `${b64.slice(0, 8)}\n${b64.slice(8)}`;
    const body = { inputMethod: 'base64', files: [b64, `data:application/pdf;base64,${b64}`, wrapped, 'not base64 at all!'.repeat(3)], [b64]: 'a key, not a value', other: { top: b64.replace(/=+$/, '') } };
    const text = JSON.stringify(body);
    for (const placeholders of [false, true]) {
      const out = parseJsonBody({ chunks: [new Uint8Array(Buffer.from(text))], minDecode: 8, placeholders });
      assert.equal(out.kind, 'ok');
      if (out.kind !== 'ok') return;
      const value = out.value as typeof body;
      // Every string the parse gives back is the one sent; decoded files leave only with placeholders.
      assert.deepEqual(value.files, placeholders ? [null, null, null, body.files[3]] : body.files);
      assert.equal(value[b64], 'a key, not a value');
      assert.equal(value.other.top, body.other.top, 'unpadded base64 outside a file field stays a string');
      const byPath = new Map(out.decoded.map((d, i) => [d.path.join('/'), { d, bytes: Buffer.from(out.buffers[i]!) }]));
      for (const p of ['files/0', 'files/1', 'files/2', 'other/top']) assert.ok(byPath.get(p)?.bytes.equals(file), p);
      assert.equal(byPath.get('files/1')!.d.contentType, 'application/pdf');
      assert.equal(byPath.get('files/1')!.d.textLength, b64.length);
      // The plain ones are rebuilt from their bytes (no copy sent); the wrapped one comes back as sent.
      if (placeholders) {
        assert.deepEqual(byPath.get('files/1')!.d.removed, { length: body.files[1]!.length, prefix: 'data:application/pdf;base64,' });
        assert.deepEqual(byPath.get('files/0')!.d.removed, { length: b64.length, prefix: '' });
        assert.equal(Buffer.from(out.sources[(byPath.get('files/2')!.d.removed as { source: number }).source]!).toString(), wrapped);
      }
    }
    // A whole body that is one long string; an invalid body whose only long string is plain base64.
    const whole = parseJsonBody({ chunks: [new Uint8Array(Buffer.from(JSON.stringify(b64)))], minDecode: 8 });
    assert.equal(whole.kind === 'ok' && whole.value, b64);
    assert.equal(parse(`{"files":["${b64}"] "x":1}`).kind, 'invalid');
    assert.equal(parse(`{"files":["${b64}",]}`).kind, 'invalid');
    assert.equal(parse(`{"__proto__":{"files":["${b64}"]}}`).kind, 'invalid');
  });
  it('with a body folder, writes each file field there and sends back only its first bytes; other strings and refusals make no folder', () => {
    const root = mkdtempSync(join(tmpdir(), 'json-work-spill-'));
    try {
      const big = Buffer.alloc(HEAD_BYTES + 1000, 7);
      const b64 = big.toString('base64');
      const wrapped = b64.replace(/.{76}/g, '$&\n');
      const spill = join(root, 'body');
      const text = JSON.stringify({ inputMethod: 'base64', files: [b64, wrapped], other: { text: b64 } });
      const out = parseJsonBody({ chunks: [new Uint8Array(Buffer.from(text))], minDecode: 8, placeholders: true, spill });
      assert.equal(out.kind, 'ok');
      if (out.kind !== 'ok') return;
      const byPath = new Map(out.decoded.map((d, i) => [d.path.join('/'), { d, bytes: Buffer.from(out.buffers[i]!) }]));
      for (const p of ['files/0', 'files/1']) {
        const { d, bytes } = byPath.get(p)!;
        const r = d.removed as { file: string; size: number };
        assert.ok(readFileSync(r.file).equals(big), p);
        assert.equal(r.size, big.length);
        assert.ok(bytes.equals(big.subarray(0, HEAD_BYTES)), `${p}: only the head comes back`);
      }
      // The wrapped string as sent is kept in a file too; the plain one is rebuilt from its bytes.
      assert.equal(readFileSync((byPath.get('files/1')!.d.removed as { sourceFile: string }).sourceFile, 'utf8'), wrapped);
      assert.equal((byPath.get('files/0')!.d.removed as { prefix: string }).prefix, '');
      assert.equal(out.sources.length, 0);
      // Not a file field: its bytes come back whole and nothing is written for it.
      assert.ok(byPath.get('other/text')!.bytes.equals(big));
      assert.equal(readdirSync(spill).length, 3);
      // A body with no file field, or refused, leaves no folder.
      for (const body of [JSON.stringify({ other: b64 }), `{"inputMethod":"base64","files":["${b64}"]`]) {
        const none = join(root, 'none');
        parseJsonBody({ chunks: [new Uint8Array(Buffer.from(body))], minDecode: 8, placeholders: true, spill: none });
        assert.equal(existsSync(none), false);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
