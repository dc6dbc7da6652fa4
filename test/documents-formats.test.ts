/**
 * convert-to-pdf type detection beyond the common families (spec §4.6, issue 5): formats named
 * by their bytes (EPS, EMF, WMF, Netpbm, XPM, XBM, DXF, Lotus, dBase, gzipped AbiWord through
 * LibreOffice's own detection), and files whose bytes do not match their name refused with a
 * 400 naming the format instead of becoming a charged PDF of their source text or of noise.
 * Samples are made here, by hand, with ghostscript and python3; the EMF and WMF are fixtures
 * LibreOffice exported from `metafile.svg` (a cold LibreOffice per test run cost seconds):
 *   soffice --headless --convert-to emf metafile.svg   (and again with wmf), in test/fixtures/documents.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { createPdfEngine } from '../core/engines/pdf/index.js';

const serviceConfig = pluginsConfig(['documents']);
const pdfTools = createPdfEngine({ dataDir: tmpdir(), publicBaseUrl: () => '', env: {}, log: console as never });
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');

let scratch: string;
let s: TestServer;
let key: string;
let origin: Server;
let originUrl: string;
const samples = new Map<string, Buffer>();

const FIX = join(import.meta.dirname, 'fixtures', 'documents');
const PS = '%!PS\n/Helvetica findfont 24 scalefont setfont\n72 700 moveto (PostScript sample) show\nshowpage\n';

/** A Lotus 1-2-3 release 2 worksheet: BOF, a label, a number, EOF. */
function wk1(): Buffer {
  const rec = (op: number, data: Buffer) => Buffer.concat([Buffer.from([op & 0xff, op >> 8, data.length & 0xff, data.length >> 8]), data]);
  const cell = (col: number, row: number) => Buffer.from([0xff, col, 0, row, 0]);
  const num = Buffer.alloc(2);
  num.writeInt16LE(42);
  return Buffer.concat([
    rec(0, Buffer.from([0x06, 0x04])),
    rec(0x0f, Buffer.concat([cell(0, 0), Buffer.from("'Lotus label\0", 'latin1')])),
    rec(0x0d, Buffer.concat([cell(1, 0), num])),
    rec(1, Buffer.alloc(0)),
  ]);
}

/** A dBase III table with two character fields and two rows. */
function dbf(): Buffer {
  const fields: [string, number][] = [['NAME', 20], ['CITY', 20]];
  const header = Buffer.alloc(32 + 32 * fields.length + 1);
  header.writeUInt8(0x03, 0);
  header.set([124, 1, 2], 1);
  header.writeUInt32LE(2, 4);
  header.writeUInt16LE(header.length, 8);
  header.writeUInt16LE(1 + 40, 10);
  fields.forEach(([name, len], i) => {
    header.write(name, 32 + 32 * i, 'latin1');
    header.write('C', 32 + 32 * i + 11, 'latin1');
    header.writeUInt8(len, 32 + 32 * i + 16);
  });
  header[header.length - 1] = 0x0d;
  const rows = [['Ada', 'Zurich'], ['Lin', 'Tokyo']].map((r) => ' ' + r.map((v) => v.padEnd(20)).join(''));
  return Buffer.concat([header, Buffer.from(rows.join(''), 'latin1'), Buffer.from([0x1a])]);
}

/** A ZIP made by python3's zipfile (entries name → content). */
function zip(entries: Record<string, string>): Buffer {
  const code = 'import sys,zipfile,json,io\nb=io.BytesIO()\nz=zipfile.ZipFile(b,"w")\nfor k,v in json.loads(sys.argv[1]).items(): z.writestr(k,v)\nz.close()\nsys.stdout.buffer.write(b.getvalue())';
  return execFileSync('python3', ['-c', code, JSON.stringify(entries)]);
}

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'documents-formats-'));
  await writeFile(join(scratch, 'page.ps'), PS);
  execFileSync('gs', ['-q', '-sDEVICE=eps2write', '-o', join(scratch, 'sample.eps'), join(scratch, 'page.ps')]);
  samples.set('eps', readFileSync(join(scratch, 'sample.eps')));
  // Metafiles LibreOffice exported (the service's pool only writes PDF).
  for (const ext of ['emf', 'wmf']) samples.set(ext, readFileSync(join(FIX, `metafile.${ext}`)));
  origin = createServer((req, res) => {
    const body = samples.get(req.url!.slice(1));
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as { port: number }).port}`;
  s = await startServer({ serviceConfig, env: { OFFICE_POOL_SIZE: '1', ALLOW_PRIVATE_NETWORK: 'true' } });
  key = (await s.createKey({ credits: 100_000 })).key;
});

after(async () => {
  await s?.close();
  await new Promise((r) => origin?.close(r));
  await rm(scratch, { recursive: true, force: true });
});

async function convert(file: Buffer | string) {
  return s.call('POST', '/api/v1/convert-to-pdf', { key, body: { inputMethod: 'base64', file: b64(file) } });
}

async function pdfOf(res: { status: number; text: string; json: any }): Promise<Buffer> {
  assert.equal(res.status, 200, res.text);
  const pdf = Buffer.from(await (await fetch(res.json.url)).arrayBuffer());
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  assert.ok((await pdfTools.check(pdf)).ok, 'qpdf --check');
  return pdf;
}

const text = (pdf: Buffer) => execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf }).toString();
const images = (pdf: Buffer) => execFileSync('pdfimages', ['-list', '-'], { input: pdf }).toString().trim().split('\n').slice(2);

describe('formats named by their bytes (base64, no other hint)', () => {
  test('EPS, EMF, WMF (placeable and standard header) become drawings, not their source text', async () => {
    const eps = await pdfOf(await convert(samples.get('eps')!));
    assert.equal(await pdfTools.pageCount(eps), 1);
    assert.doesNotMatch(text(eps), /%!PS|showpage/);
    assert.ok(images(eps).length >= 1, 'the EPS is rendered as a picture');
    const wmf = samples.get('wmf')!;
    assert.equal(wmf.readUInt32LE(0), 0x9ac6cdd7, 'LibreOffice writes a placeable WMF');
    for (const metafile of [samples.get('emf')!, wmf, wmf.subarray(22)]) {
      const pdf = await pdfOf(await convert(metafile));
      assert.match(text(pdf), /Metafile label/);
    }
  });

  test('ASCII PBM and PGM, XPM and XBM become images; DXF a drawing', async () => {
    const bitmaps = [
      'P1\n4 3\n0 1 1 0\n1 0 0 1\n0 1 1 0\n',
      'P2\n3 2\n255\n0 128 255\n255 128 0\n',
      '/* XPM */\nstatic char *sample[] = {\n"4 2 2 1",\n"  c #FFFFFF",\n". c #000000",\n" .. ",\n".  .",\n};\n',
      '#define s_width 8\n#define s_height 2\nstatic char s_bits[] = {\n 0xff, 0x81 };\n',
    ];
    for (const source of bitmaps) {
      const pdf = await pdfOf(await convert(source));
      assert.ok(images(pdf).length >= 1, source.slice(0, 12));
      assert.equal(text(pdf).trim(), '', source.slice(0, 12));
    }
    const dxf = '  0\nSECTION\n  2\nENTITIES\n  0\nLINE\n  8\n0\n 10\n0.0\n 20\n0.0\n 30\n0.0\n 11\n100.0\n 21\n50.0\n 31\n0.0\n  0\nENDSEC\n  0\nEOF\n';
    const drawing = await pdfOf(await convert(dxf));
    assert.doesNotMatch(text(drawing), /SECTION|ENTITIES/);
  });

  test('a Lotus 1-2-3 worksheet and a gzipped AbiWord file (known to LibreOffice only) convert', async () => {
    assert.match(text(await pdfOf(await convert(wk1()))), /Lotus label[\s\S]*42/);
    const abw = '<?xml version="1.0"?><abiword xmlns="http://www.abisource.com/awml.dtd" fileformat="1.1"><section><p>AbiWord paragraph</p></section></abiword>';
    assert.match(text(await pdfOf(await convert(gzipSync(abw)))), /AbiWord paragraph/);
  });

  test('a dBase table converts (Calc reads it through libreoffice-base-drivers, installed by setup)', async () => {
    assert.match(text(await pdfOf(await convert(dbf()))), /Zurich/);
  });
});

describe('bytes that do not match their name', () => {
  test('PostScript that is not EPS, fake WordPerfect, Keynote, CorelDRAW and HWP files are 400s naming the format; nothing charged', async () => {
    const start = (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
    const noise = Buffer.alloc(3000, 0x5a);
    const cases: [Buffer | string, RegExp][] = [
      [PS, /\.eps/],
      [Buffer.concat([Buffer.from([0xff, 0x57, 0x50, 0x43, 0x10, 0, 0, 0, 1, 0x0a, 2, 1]), noise]), /\.wpd/],
      [zip({ 'Index/Document.iwa': 'not a protobuf', 'Index/Slide-1.iwa': 'x' }), /\.key/],
      [Buffer.concat([Buffer.from('RIFF\x00\x10\x00\x00CDR9vrsn', 'latin1'), noise]), /\.cdr/],
      [Buffer.concat([Buffer.from('HWP Document File V3.00 \x1a\x01\x02\x03\x04\x05', 'latin1'), noise]), /\.hwp/],
    ];
    for (const [file, format] of cases) {
      const res = await convert(file);
      assert.equal(res.status, 400, `${format} → ${res.text}`);
      assert.match(res.json.error, format);
    }
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, start);
  });

  test('random bytes under a name no signature covers are refused by LibreOffice’s own detection', async () => {
    samples.set('random.wpd', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251)));
    samples.set('random.pages', samples.get('random.wpd')!);
    const res = await s.call('POST', '/api/v1/convert-to-pdf', { key, body: { inputMethod: 'url', file: `${originUrl}/random.wpd` } });
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.error, /not a valid \.wpd file: LibreOffice could only read it as plain text/);
    const zipless = await s.call('POST', '/api/v1/convert-to-pdf', { key, body: { inputMethod: 'url', file: `${originUrl}/random.pages` } });
    assert.equal(zipless.status, 400, zipless.text);
    assert.match(zipless.json.error, /not a valid \.pages/);
  });

  test('a truncated .docx that still starts like one is a 400, not a page of noise', async () => {
    const docx = readFileSync(join(FIX, 'writer.docx'));
    samples.set('truncated.docx', docx.subarray(0, Math.floor(docx.length / 2)));
    for (const res of [
      await convert(samples.get('truncated.docx')!),
      await s.call('POST', '/api/v1/convert-to-pdf', { key, body: { inputMethod: 'url', file: `${originUrl}/truncated.docx` } }),
    ]) {
      assert.equal(res.status, 400, res.text);
      assert.match(res.json.error, /not a valid \.docx/);
    }
  });
});
