/**
 * The native pre-check of what pdf-lib would inflate (core/engines/pdf/eager-streams.ts, issue 24
 * finding 2), through the real server with the decode cap lowered to 20 MB: object- and
 * cross-reference-stream bombs in other shapes than the bench's are free 400s naming the file,
 * while files pdf-lib reads within the cap still merge: a large Flate image (copied, never
 * inflated), a file written with object and cross-reference streams. Another key's merge is
 * served beside a key whose bombs are being refused.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { assemble, textPdf } from './fixtures/extract/make.js';

const REFUSED = (label: string) => `${label} is refused: its compressed streams expand past the 20 MB this service decodes for one request.`;

/** A PDF of the numbered objects `objects` (1: catalog) with a classic cross-reference table. */
const pdfOf = (objects: Buffer[]) => assemble(objects, '1.5');

/** A stream object: `dict` entries, Flate data of `inflated`. */
const flate = (dict: string, inflated: Buffer) => {
  const packed = deflateSync(inflated, { level: 9 });
  return Buffer.concat([Buffer.from(`<< ${dict} /Filter /FlateDecode /Length ${packed.length} >>\nstream\n`), packed, Buffer.from('\nendstream')]);
};

/** A one-page PDF whose fourth object is `extra` (referenced from the page's resources when `image`). */
const onePageWith = (extra: Buffer, image = false) =>
  pdfOf([
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200]${image ? ' /Resources << /XObject << /Im1 4 0 R >> >>' : ''} >>`),
    extra,
  ]);

let s: TestServer;
let a: string;
let b: string;

before(async () => {
  s = await startServer({ serviceConfig: pluginsConfig(['documents']), env: { DOCUMENTS_PREWARM: 'false', PDF_MAX_DECODED_MB: '20', PDF_THREADS: '1' } });
  a = (await s.createKey({ credits: 1000 })).key;
  b = (await s.createKey({ credits: 1000 })).key;
});
after(async () => {
  await s?.close();
});

const merge = (key: string, files: Buffer[]) => s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'base64', files: files.map((f) => f.toString('base64')) } });
const balance = async (key: string) => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;

describe('object and cross-reference stream bombs', () => {
  it('refuses them in other shapes for free, naming the file: a cross-reference stream, a filter array, a bomb split over streams', async () => {
    const fine = textPdf(['Fine']);
    const blanks = (mb: number) => Buffer.alloc(mb * 1_000_000, 0x20);
    const shapes: [string, Buffer][] = [
      ['a cross-reference stream', onePageWith(flate('/Type /XRef /Size 5 /W [1 2 1]', blanks(40)))],
      ['a one-filter array', onePageWith(Buffer.from(flate('/Type /ObjStm /N 1 /First 4', Buffer.concat([Buffer.from('5 0 null'), blanks(40)])).toString('latin1').replace('/Filter /FlateDecode', '/Filter [/FlateDecode]'), 'latin1'))],
      // Two object streams of 12 MB each: under the cap apart, over it together.
      [
        'two streams',
        pdfOf([
          Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
          Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
          Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>'),
          flate('/Type /ObjStm /N 1 /First 4', Buffer.concat([Buffer.from('6 0 null'), blanks(12)])),
          flate('/Type /ObjStm /N 1 /First 4', Buffer.concat([Buffer.from('7 0 null'), blanks(12)])),
        ]),
      ],
    ];
    const start = await balance(a);
    for (const [what, bomb] of shapes) {
      const res = await merge(a, [fine, bomb]);
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.equal(res.json.error, REFUSED('files[1]'), what);
    }
    assert.equal(await balance(a), start);
  });

  it('another key merges while bombs of the first are being refused, and pays for its merge only', async () => {
    const bomb = onePageWith(flate('/Type /ObjStm /N 1 /First 4', Buffer.concat([Buffer.from('5 0 null'), Buffer.alloc(200_000_000, 0x20)])));
    const [startA, startB] = [await balance(a), await balance(b)];
    const bombs = Array.from({ length: 4 }, () => merge(a, [bomb, bomb]));
    const small = await merge(b, [textPdf(['One']), textPdf(['Two'])]);
    assert.equal(small.status, 200, small.text);
    for (const res of await Promise.all(bombs)) {
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error, REFUSED('files[0]'));
    }
    assert.deepEqual([await balance(a), await balance(b)], [startA, startB - 50]);
  });
});

describe('files within the cap still merge', () => {
  it('a page whose Flate image inflates past the cap (pdf-lib copies it without inflating it)', async () => {
    const image = flate('/Type /XObject /Subtype /Image /Width 5000 /Height 2000 /ColorSpace /DeviceRGB /BitsPerComponent 8', Buffer.alloc(5000 * 2000 * 3));
    const res = await merge(a, [onePageWith(image, true), textPdf(['After'])]);
    assert.equal(res.status, 200, res.text);
  });

  it('a file written with object streams and a cross-reference stream (qpdf)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pdf-objstm-'));
    try {
      await writeFile(join(dir, 'in.pdf'), textPdf(['One', 'Two', 'Three']));
      execFileSync('qpdf', ['--object-streams=generate', join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
      const packed = await readFile(join(dir, 'out.pdf'));
      assert.match(packed.toString('latin1'), /\/ObjStm/);
      assert.match(packed.toString('latin1'), /\/XRef/);
      const start = await balance(a);
      const res = await merge(a, [packed, textPdf(['Four'])]);
      assert.equal(res.status, 200, res.text);
      assert.equal(await balance(a), start - 50);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
