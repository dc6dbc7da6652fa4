/**
 * convert-to-pdf's format checks read a file's start and end, a ZIP's directory, and search an
 * OLE container a chunk at a time (issue 24: the whole input was held to be sniffed). These
 * cases are the ones where reading less could answer differently: a signature at the end of a
 * large file (TGA), a large ZIP cut short before its directory, and OLE stream names past the
 * head and across a chunk's end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { checkFormat, detectFormat } from '../plugins/documents/sniff.js';
import { sampleOf } from '../plugins/documents/sample.js';
import { docx, zip } from './helpers/zip.js';

const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const MiB = 1 << 20;

/** An OLE container with each `[name, offset]` stream name (UTF-16) at that offset, `size` bytes long. */
function ole(size: number, names: [string, number][]): Buffer {
  const b = Buffer.alloc(size, 0x5a);
  OLE.copy(b, 0);
  for (const [name, at] of names) Buffer.from(name, 'utf16le').copy(b, at);
  return b;
}

/** A TGA header (uncompressed true colour) then `size` bytes of pixels, with or without the TGA 2.0 footer. */
function tga(size: number, footer: boolean): Buffer {
  const header = Buffer.alloc(18);
  header[2] = 2;
  const tail = footer ? Buffer.concat([Buffer.alloc(8), Buffer.from('TRUEVISION-XFILE.\0', 'latin1')]) : Buffer.alloc(0);
  return Buffer.concat([header, Buffer.alloc(size, 0x7f), tail]);
}

test('formats of large files are told from the parts of them that are read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sniff-file-'));
  try {
    const padded = zip([{ name: 'pad.bin', data: randomBytes(300_000), store: true }, ...['word/document.xml', '[Content_Types].xml'].map((name) => ({ name, data: '<a/>' }))]);
    const xlsbLate = zip([{ name: 'pad.bin', data: randomBytes(300_000), store: true }, { name: 'xl/workbook.bin', data: 'x' }]);
    const cases: [string, Buffer, string | undefined][] = [
      ['a TGA with its footer', tga(300_000, true), 'tga'],
      ['the same pixels without it', tga(300_000, false), undefined],
      ['a small DOCX', docx(3), 'docx'],
      ['a DOCX past the head', padded, 'docx'],
      ['an XLSB whose workbook comes last', xlsbLate, 'xlsb'],
      ['a DOCX cut short before its directory', padded.subarray(0, padded.length - 60), 'docx'],
      ['an OLE file naming WordDocument past its head', ole(3 * MiB, [['WordDocument', 2 * MiB + 5]]), 'doc'],
      ['an OLE file naming Workbook across the first chunk\'s end', ole(3 * MiB, [['Workbook', MiB - 7]]), 'xls'],
      ['an OLE Word file encrypted, its marker in the last bytes', ole(3 * MiB, [['WordDocument', 600], ['EncryptionInfo', 3 * MiB - 28]]), 'encrypted'],
      ['an OLE file naming nothing known', ole(3 * MiB, []), undefined],
    ];
    for (const [name, bytes, want] of cases) {
      const file = join(dir, `f-${randomBytes(4).toString('hex')}`);
      writeFileSync(file, bytes);
      assert.equal(await detectFormat(await sampleOf(file, bytes.length)), want, name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the claimed format is checked on the file: an encrypted .docx past the head, an OLE file claimed as .xlsx', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sniff-file-'));
  try {
    const check = async (ext: string, bytes: Buffer) => {
      const file = join(dir, `f-${randomBytes(4).toString('hex')}`);
      writeFileSync(file, bytes);
      try {
        await checkFormat(ext, await sampleOf(file, bytes.length));
        return 'ok';
      } catch (err) {
        return (err as Error).message;
      }
    };
    assert.equal(await check('docx', ole(2 * MiB, [['EncryptionInfo', MiB + 100]])), 'The file is password-protected; remove the password and retry.');
    assert.equal(await check('doc', ole(2 * MiB, [['WordDocument', MiB + 100]])), 'ok');
    assert.equal(await check('xlsx', ole(2 * MiB, [['Workbook', MiB + 100]])), 'The file is not a valid .xlsx document.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
