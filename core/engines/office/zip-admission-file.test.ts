/**
 * admitZipFile reads only an archive's end and central directory from its file (issue 24: office
 * inputs are no longer read whole into memory), and must give the verdict admitZip gives the same
 * bytes in memory: admitted, or the same 400 text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { admitZip, admitZipFile, isZip, type ZipCaps } from './zip-admission.js';
import { docx, zip } from '../../../test/helpers/zip.js';

const caps: ZipCaps = { maxUncompressedBytes: 5_000_000, maxRatio: 100, maxEntries: 50 };

/** What admitZip says of `bytes`: 'ok' or its error text. */
function inMemory(bytes: Buffer): string {
  try {
    if (isZip(bytes)) admitZip(bytes, caps, '.docx file');
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
}

/** What admitZipFile says of `bytes` written to a file. */
async function fromFile(dir: string, bytes: Buffer): Promise<string> {
  const file = join(dir, `in-${randomBytes(4).toString('hex')}`);
  writeFileSync(file, bytes);
  try {
    await admitZipFile(file, caps, '.docx file');
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
}

/** `archive` with a comment of `n` bytes after its end record (the end record is then searched for). */
function withComment(archive: Buffer, n: number): Buffer {
  const out = Buffer.concat([archive, Buffer.alloc(n, 0x20)]);
  out.writeUInt16LE(n, archive.length - 2);
  return out;
}

test('admitZipFile gives admitZip\'s verdict on the same bytes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zip-admission-'));
  try {
    const ordinary = docx(3, 'Ordinary');
    const cases: [string, Buffer, RegExp | 'ok'][] = [
      ['an ordinary DOCX', ordinary, 'ok'],
      ['an ordinary DOCX after 300 KB of stored data', zip([{ name: 'pad.bin', data: randomBytes(300_000), store: true }, { name: 'a.xml', data: '<a/>' }]), 'ok'],
      ['an ordinary DOCX with a 60 KB comment', withComment(ordinary, 60_000), 'ok'],
      ['a DOCX declaring 20 MB', docx(600_000), /declares more than 5 MB/],
      ['an entry expanding 1000 times', zip([{ name: 'big.xml', data: Buffer.alloc(3_000_000, 0x41) }]), /expands \d+ times/],
      ['too many entries', zip(Array.from({ length: 60 }, (_, i) => ({ name: `e${i}`, data: 'x' }))), /holds 60 archive entries/],
      ['a directory cut off', ordinary.subarray(0, ordinary.length - 10), /ZIP structure is damaged/],
      ['not an archive', Buffer.from('plain text, no archive'), 'ok'],
    ];
    for (const [name, bytes, want] of cases) {
      const memory = inMemory(bytes);
      if (want === 'ok') assert.equal(memory, 'ok', name);
      else assert.match(memory, want, name);
      assert.equal(await fromFile(dir, bytes), memory, name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
