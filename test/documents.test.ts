/**
 * Documents lane, black-box through the real server (spec §4.6, §8): conversions of every
 * document family, merges with metadata and PDF/A (PDF/UA: documents-pdfua.test.ts), faults
 * (LibreOffice killed, queue full, corrupt/encrypted/empty inputs, expired links) and credits.
 * LibreOffice work is kept small: one worker per server, tiny fixtures.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { createPdfEngine } from '../core/engines/pdf/index.js';

const FIX = join(import.meta.dirname, 'fixtures', 'documents');
const serviceConfig = pluginsConfig(['documents']);
const pdfTools = createPdfEngine({ dataDir: tmpdir(), publicBaseUrl: () => '', env: {}, log: console as never });
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');
const fixture = (name: string) => readFileSync(join(FIX, name));

let scratch: string;
let s: TestServer;
let officeDir: string;
let key: string;
let origin: Server;
let originUrl: string;
let probeHits = 0;

/** Downloads a produced file through its signed URL. */
async function download(url: string): Promise<{ status: number; body: Buffer; type: string | null }> {
  const res = await fetch(url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
}

function pdftotext(pdf: Buffer): string {
  return execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf }).toString();
}

async function balance(k: string): Promise<number> {
  return (await s.call('GET', '/api/v2/balance', { key: k })).json.data.credits;
}

async function convert(body: unknown, k = key) {
  return s.call('POST', '/api/v1/convert-to-pdf', { key: k, body });
}

/** A PDF made by the service itself from text, for the merge tests. */
async function textPdf(text: string): Promise<Buffer> {
  const res = await convert({ inputMethod: 'base64', file: b64(text) });
  assert.equal(res.status, 200, res.text);
  return (await download(res.json.url)).body;
}

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'documents-test-'));
  officeDir = join(scratch, 'office');
  // A loopback origin for `inputMethod: url` (reached with ALLOW_PRIVATE_NETWORK=true).
  origin = createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    if (u.pathname === '/probe.png') {
      probeHits++;
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(fixture('image.png'));
    }
    if (u.pathname.startsWith('/download')) {
      res.writeHead(200, { 'content-type': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' });
      return res.end(fixture('writer.docx'));
    }
    const name = u.pathname.slice(1);
    try {
      // Fixtures, or PDFs a test wrote into its scratch directory.
      const data = readFileSync(join(name.endsWith('.pdf') ? scratch : FIX, name));
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(data);
    } catch {
      res.writeHead(404).end('missing');
    }
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as { port: number }).port}`;
  s = await startServer({
    serviceConfig,
    env: { OFFICE_POOL_SIZE: '1', OFFICE_WORK_DIR: officeDir, ALLOW_PRIVATE_NETWORK: 'true' },
  });
  key = (await s.createKey({ credits: 100_000 })).key;
});

after(async () => {
  await s?.close();
  await new Promise((r) => origin?.close(r));
  await rm(scratch, { recursive: true, force: true });
});

describe('convert-to-pdf', () => {
  const cases: [string, string, number, RegExp | null][] = [
    ['docx', 'writer.docx', 2, /Fixture writer page two/],
    ['doc', 'writer.doc', 2, /Fixture writer page two/],
    ['odt', 'writer.odt', 2, /Fixture writer page one/],
    ['rtf', 'writer.rtf', 2, /Fixture writer page two/],
    ['xlsx', 'sheet.xlsx', 1, /Fixture calc cell\s+42|Fixture calc cell[\s\S]*42/],
    ['ods', 'sheet.ods', 1, /Fixture calc cell/],
    ['pptx', 'slides.pptx', 2, /Fixture slide two/],
    ['odp', 'slides.odp', 2, /Fixture slide one/],
    ['png', 'image.png', 1, null],
    ['jpg', 'image.jpg', 1, null],
  ];
  for (const [ext, name, pages, text] of cases) {
    test(`converts .${ext} given as base64 (type from the bytes)`, async () => {
      const res = await convert({ inputMethod: 'base64', file: b64(fixture(name)), requestSource: 'API' });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.url, /\/files\/[A-Za-z0-9_-]+\?expires=\d+&sig=[0-9a-f]{64}$/);
      assert.equal(res.headers['x-credits-charged'], '50');
      const file = await download(res.json.url);
      assert.equal(file.status, 200);
      assert.equal(file.type, 'application/pdf');
      assert.equal(file.body.subarray(0, 5).toString(), '%PDF-');
      assert.equal(await pdfTools.pageCount(file.body), pages);
      assert.ok((await pdfTools.check(file.body)).ok, 'qpdf --check');
      if (text) assert.match(pdftotext(file.body), text);
      else assert.match(execFileSync('pdfimages', ['-list', '-'], { input: file.body }).toString(), /image/);
    });
  }

  test('converts html (first heading kept), csv, txt and svg, including non-ASCII text', async () => {
    const inputs: [string, string, RegExp][] = [
      ['<!DOCTYPE html><html><body><h1>First heading stays</h1><p>Grüße 東京</p></body></html>', 'html', /First heading stays[\s\S]*Grüße/],
      ['name,city\nAda,Zürich\nLin,東京\n', 'csv', /Ada\s+Zürich/],
      ['Plain text line one\nGrüße aus Zürich — 東京 ✓\n', 'txt', /Plain text line one\s+Grüße aus Zürich — 東京 ✓/],
      ['<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100"><text x="10" y="50" font-size="20">Vector label</text></svg>', 'svg', /Vector label/],
    ];
    for (const [content, ext, expected] of inputs) {
      const res = await convert({ inputMethod: 'base64', file: b64(content) });
      assert.equal(res.status, 200, `${ext}: ${res.text}`);
      const file = await download(res.json.url);
      assert.equal(await pdfTools.pageCount(file.body), 1, ext);
      assert.ok((await pdfTools.check(file.body)).ok, `qpdf --check ${ext}`);
      assert.match(pdftotext(file.body), expected, ext);
    }
  });

  test('LibreOffice reaches neither the network nor host files through links inside a document', async () => {
    // ALLOW_PRIVATE_NETWORK is on in this server, so only the office confinement can stop these.
    const hostFile = join(scratch, 'host-only.png');
    await writeFile(hostFile, fixture('image.png'));
    const inline = `data:image/png;base64,${fixture('image.png').toString('base64')}`;
    const html = `<!DOCTYPE html><html><body><h1>Linked images</h1>
      <p><img src="${originUrl}/probe.png" width="50" height="50"></p>
      <p><img src="file://${hostFile}" width="50" height="50"></p>
      <p><img src="${inline}" width="50" height="50"></p></body></html>`;
    const res = await convert({ inputMethod: 'base64', file: b64(html) });
    assert.equal(res.status, 200, res.text);
    const file = await download(res.json.url);
    assert.match(pdftotext(file.body), /Linked images/);
    // pdfimages -list: two header lines, then a line per image (and per soft mask, type `smask`).
    const list = execFileSync('pdfimages', ['-list', '-'], { input: file.body }).toString();
    const images = list.trim().split('\n').slice(2).filter((line) => line.split(/\s+/)[3] === 'image');
    assert.equal(images.length, 1, list);
    assert.equal(probeHits, 0);
  });

  test('takes the type from the URL path, or from the Content-Type when the path has none', async () => {
    const byPath = await convert({ inputMethod: 'url', file: `${originUrl}/writer.odt` });
    assert.equal(byPath.status, 200, byPath.text);
    const odt = (await download(byPath.json.url)).body;
    assert.match(pdftotext(odt), /Fixture writer page one/);
    assert.ok((await pdfTools.check(odt)).ok, 'qpdf --check');
    const byType = await convert({ inputMethod: 'url', file: `${originUrl}/download` });
    assert.equal(byType.status, 200, byType.text);
    const docx = (await download(byType.json.url)).body;
    assert.equal(await pdfTools.pageCount(docx), 2);
    assert.ok((await pdfTools.check(docx)).ok, 'qpdf --check');
    // A malformed escape where the extension would be: the Content-Type decides, no 500.
    const malformed = await convert({ inputMethod: 'url', file: `${originUrl}/download.%E0%A4` });
    assert.equal(malformed.status, 200, malformed.text);
  });

  test('GET lists the supported extensions of spec §4.6 for free', async () => {
    const before = await balance(key);
    const res = await s.call('GET', '/api/v1/convert-to-pdf', { key });
    assert.equal(res.status, 200, res.text);
    for (const ext of ['.docx', '.xlsx', '.pptx', '.odt', '.html', '.png', '.svg', '.zabw', '.123']) assert.ok(res.json.formats.includes(ext), ext);
    assert.equal(res.json.formats.length, 130);
    assert.equal(await balance(key), before);
  });

  test('rejects bad input with 400 and charges nothing', async () => {
    const start = await balance(key);
    const bad: [unknown, RegExp][] = [
      [{ file: b64('x') }, /'inputMethod' parameter is required/],
      [{ inputMethod: 'base64' }, /'file' parameter is required/],
      [{ inputMethod: 'base64', file: '' }, /'file' parameter is required/],
      [{ inputMethod: 'ftp', file: 'x' }, /'inputMethod'/],
      [{ inputMethod: 'url', file: 'not a url' }, /http or https URL/],
      [{ inputMethod: 'base64', file: '@@@not base64@@@' }, /not valid base64/],
      [{ inputMethod: 'base64', file: b64(Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x99])) }, /Unrecognised file format/],
      [{ inputMethod: 'base64', file: b64('%PDF-1.4\n%%EOF') }, /already a PDF/],
      [{ inputMethod: 'url', file: `${originUrl}/notes.xyz` }, /Could not download|Unsupported file format/],
    ];
    for (const [body, message] of bad) {
      const res = await convert(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${res.text}`);
      assert.match(res.json.error, message);
    }
    assert.equal(await balance(key), start);
  });

  test('random bytes named .docx, an encrypted document and an empty download are 400, not a PDF', async () => {
    const start = await balance(key);
    const random = Buffer.alloc(4096, 7);
    // Served by a second origin path: bytes that are not a document under a .docx name.
    const srv = createServer((req, res) => {
      if (req.url === '/random.docx') return res.end(random);
      if (req.url === '/empty.docx') return res.end();
      res.end(fixture('protected.odt'));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
    try {
      const r1 = await convert({ inputMethod: 'url', file: `${base}/random.docx` });
      assert.equal(r1.status, 400, r1.text);
      assert.match(r1.json.error, /not a valid \.docx/);
      const r2 = await convert({ inputMethod: 'url', file: `${base}/empty.docx` });
      assert.equal(r2.status, 400, r2.text);
      assert.match(r2.json.error, /empty/);
      const r3 = await convert({ inputMethod: 'url', file: `${base}/secret.odt` });
      assert.equal(r3.status, 400, r3.text);
      assert.match(r3.json.error, /password-protected/);
    } finally {
      await new Promise((r) => srv.close(r));
    }
    assert.equal(await balance(key), start);
  });

  test('an unreachable URL is a 400 naming the field', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const res = await convert({ inputMethod: 'url', file: `http://127.0.0.1:${port}/gone.docx` });
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.error, /^Could not download 'file'/);
  });

  test('a download URL with a tampered signature or expiry is 404', async () => {
    const res = await convert({ inputMethod: 'base64', file: b64('tamper test') });
    assert.equal(res.status, 200);
    const u = new URL(res.json.url);
    const sig = u.searchParams.get('sig')!;
    const badSig = new URL(u);
    badSig.searchParams.set('sig', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
    assert.equal((await download(badSig.toString())).status, 404);
    const later = new URL(u);
    later.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600));
    assert.equal((await download(later.toString())).status, 404);
    assert.equal((await download(u.toString())).status, 200);
  });
});

describe('merge-pdfs', () => {
  let one: Buffer;
  let two: Buffer;
  before(async () => {
    one = await textPdf('Merge input one\n');
    two = await textPdf('<html><body><h1>Merge input two</h1><p style="page-break-after:always">a</p><p>second page of two</p></body></html>');
    assert.equal(await pdfTools.pageCount(two), 2);
  });

  async function merge(body: Record<string, unknown>) {
    return s.call('POST', '/api/v1/merge-pdfs', { key, body });
  }

  test('keeps page order, sums pages and writes Unicode metadata', async () => {
    const res = await merge({
      inputMethod: 'base64',
      files: [b64(two), b64(one), b64(two)],
      metadata: { Title: 'Quartalsbericht Zürich 東京', Author: 'Jörg Ø', Subject: 'Sujet é', Keywords: 'alpha, beta' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-credits-charged'], '50');
    const pdf = (await download(res.json.url)).body;
    const info = await pdfTools.inspect(pdf);
    assert.equal(info.pages, 5);
    const pages = [1, 2, 3, 4, 5].map((p) => execFileSync('pdftotext', ['-f', String(p), '-l', String(p), '-', '-'], { input: pdf }).toString());
    assert.match(pages[0]!, /Merge input two/);
    assert.match(pages[1]!, /second page of two/);
    assert.match(pages[2]!, /Merge input one/);
    assert.match(pages[3]!, /Merge input two/);
    assert.equal(info.info.Title, 'Quartalsbericht Zürich 東京');
    assert.equal(info.info.Author, 'Jörg Ø');
    assert.equal(info.info.Subject, 'Sujet é');
    assert.equal(info.info.Keywords, 'alpha, beta');
    assert.match(execFileSync('pdfinfo', ['-'], { input: pdf }).toString(), /Title:\s+Quartalsbericht Zürich 東京/);
    assert.ok((await pdfTools.check(pdf)).ok);
  });

  for (const [level, part] of [['PDF/A-1b', 1], ['PDF/A-2b', 2], ['PDF/A-3b', 3]] as const) {
    test(`${level}: XMP identification, output intent, embedded fonts, metadata kept`, async () => {
      const res = await merge({ inputMethod: 'base64', files: [b64(one), b64(two)], pdfa: level, metadata: { Title: 'Archiv Ärger', Author: 'Zoë' } });
      assert.equal(res.status, 200, res.text);
      const pdf = (await download(res.json.url)).body;
      const info = await pdfTools.inspect(pdf);
      assert.equal(info.pages, 3);
      assert.deepEqual(info.pdfa, { part, conformance: 'B' });
      assert.ok(info.outputIntent, 'output intent');
      assert.ok(info.fonts.length > 0 && info.fonts.every((f) => f.embedded), JSON.stringify(info.fonts));
      assert.equal(info.info.Title, 'Archiv Ärger');
      assert.match(info.xmp!, /<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Archiv Ärger<\/rdf:li>/);
      assert.match(info.xmp!, /<dc:creator><rdf:Seq><rdf:li>Zoë<\/rdf:li>/);
      assert.ok((await pdfTools.check(pdf)).ok);
    });
  }

  test('URL inputs are fetched and kept in order; a failing URL is a 400 naming it', async () => {
    await writeFile(join(scratch, 'one.pdf'), one);
    await writeFile(join(scratch, 'two.pdf'), two);
    const res = await merge({ inputMethod: 'url', files: [`${originUrl}/one.pdf`, `${originUrl}/two.pdf`] });
    assert.equal(res.status, 200, res.text);
    const pdf = (await download(res.json.url)).body;
    assert.equal(await pdfTools.pageCount(pdf), 3);
    assert.ok((await pdfTools.check(pdf)).ok, 'qpdf --check');
    assert.match(execFileSync('pdftotext', ['-f', '1', '-l', '1', '-', '-'], { input: pdf }).toString(), /Merge input one/);
    const missing = await merge({ inputMethod: 'url', files: [`${originUrl}/one.pdf`, `${originUrl}/missing.pdf`] });
    assert.equal(missing.status, 400, missing.text);
    assert.match(missing.json.error, /files\[1\].*HTTP 404/);
  });

  test('encrypted, corrupt, non-PDF and too few inputs are 400 naming the file; nothing charged', async () => {
    const start = await balance(key);
    const plain = join(scratch, 'plain.pdf');
    const locked = join(scratch, 'locked.pdf');
    await writeFile(plain, one);
    execFileSync('qpdf', ['--encrypt', 'user-pw', 'owner-pw', '256', '--', plain, locked]);
    const cases: [unknown[], RegExp][] = [
      [[b64(one), b64(await readFile(locked))], /files\[1\] is password-protected/],
      [[b64('%PDF-1.7\n1 0 obj garbage'), b64(one)], /files\[0\] is corrupt/],
      [[b64(one), b64('just text')], /files\[1\] is not a PDF/],
      [[b64(one)], /'files' parameter is required and must be an array of at least 2/],
    ];
    for (const [files, message] of cases) {
      const res = await merge({ inputMethod: 'base64', files });
      assert.equal(res.status, 400, res.text);
      assert.match(res.json.error, message);
    }
    const badLevel = await merge({ inputMethod: 'base64', files: [b64(one), b64(one)], pdfa: 'PDF/A-4' });
    assert.equal(badLevel.status, 400);
    assert.match(badLevel.json.error, /'pdfa' must be one of/);
    assert.equal(await balance(key), start);
  });

  test('an owner-password-only PDF (permissions) is decrypted and merged', async () => {
    const plain = join(scratch, 'plain2.pdf');
    const restricted = join(scratch, 'restricted.pdf');
    await writeFile(plain, one);
    execFileSync('qpdf', ['--encrypt', '', 'owner-pw', '256', '--print=none', '--', plain, restricted]);
    const res = await merge({ inputMethod: 'base64', files: [b64(await readFile(restricted)), b64(one)] });
    assert.equal(res.status, 200, res.text);
    const pdf = (await download(res.json.url)).body;
    assert.equal(await pdfTools.pageCount(pdf), 2);
    assert.ok((await pdfTools.check(pdf)).ok, 'qpdf --check');
  });
});

describe('LibreOffice faults', () => {
  /** soffice.bin processes of this server's pool, found by their profile directory. */
  function sofficePids(): number[] {
    const pids: number[] = [];
    for (const p of readdirSync('/proc')) {
      if (!/^\d+$/.test(p)) continue;
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
        if (cmd.includes('soffice.bin') && cmd.includes(`UserInstallation=file://${officeDir}/`)) pids.push(Number(p));
      } catch {
        /* exited meanwhile */
      }
    }
    return pids;
  }

  test('LibreOffice killed mid-conversion: 500, credits released, the next conversion succeeds', async () => {
    const start = await balance(key);
    // A long text keeps the single worker busy long enough to be caught mid-conversion.
    const long = Array.from({ length: 40_000 }, (_, i) => `Line ${i} of a long document that takes a while to lay out.`).join('\n');
    const pending = convert({ inputMethod: 'base64', file: b64(long) });
    // A job is handed to its worker by moving the input into that worker's job dir (profile-N.job).
    const inWorker = async () => {
      for (const dir of (await readdir(officeDir).catch(() => [] as string[])).filter((d) => d.endsWith('.job'))) {
        if ((await readdir(join(officeDir, dir)).catch(() => [] as string[])).some((f) => f.startsWith('input.'))) return true;
      }
      return false;
    };
    let killed = false;
    for (let i = 0; i < 3000 && !killed; i++) {
      const started = await inWorker();
      if (started) {
        // LibreOffice has the job; let it start laying out.
        await new Promise((r) => setTimeout(r, 300));
        for (const pid of sofficePids()) process.kill(pid, 'SIGKILL');
        killed = true;
      } else await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(killed, 'the conversion was seen in flight');
    const res = await pending;
    assert.equal(res.status, 500, res.text);
    assert.match(res.json.error, /^Failed to convert to PDF: /);
    assert.equal(await balance(key), start);
    const next = await convert({ inputMethod: 'base64', file: b64('after the crash') });
    assert.equal(next.status, 200, next.text);
    const pdf = (await download(next.json.url)).body;
    assert.match(pdftotext(pdf), /after the crash/);
    assert.ok((await pdfTools.check(pdf)).ok, 'qpdf --check');
  });
});

describe('queue and retention', () => {
  let q: TestServer;
  let qKey: string;
  before(async () => {
    q = await startServer({
      serviceConfig,
      // Cold pool, one worker, one waiting slot: requests sent while it starts overflow the queue.
      // No ALLOW_PRIVATE_NETWORK here: the SSRF guard refuses loopback URLs. Inputs capped at 20 KB.
      env: { OFFICE_POOL_SIZE: '1', OFFICE_QUEUE_SIZE: '1', DOCUMENTS_PREWARM: 'false', FILES_MAX_RETENTION_MS: '1500', DOCUMENTS_MAX_FILE_MB: '0.02' },
    });
    qKey = (await q.createKey({ credits: 1000 })).key;
  });
  after(async () => q?.close());

  test('URL inputs pass the SSRF guard and every input the size cap (413); refusals cost nothing', async () => {
    const call = (path: string, body: unknown) => q.call('POST', path, { key: qKey, body });
    const loop = await call('/api/v1/convert-to-pdf', { inputMethod: 'url', file: `${originUrl}/writer.docx` });
    assert.equal(loop.status, 400, loop.text);
    assert.match(loop.json.error, /URL not allowed/);
    const mergeLoop = await call('/api/v1/merge-pdfs', { inputMethod: 'url', files: [`${originUrl}/a.pdf`, `${originUrl}/b.pdf`] });
    assert.equal(mergeLoop.status, 400, mergeLoop.text);
    const big = await call('/api/v1/convert-to-pdf', { inputMethod: 'base64', file: b64('x'.repeat(30_000)) });
    assert.equal(big.status, 413, big.text);
    assert.match(big.json.error, /'file' is larger than the 20 KB limit/);
    const bigMerge = await call('/api/v1/merge-pdfs', { inputMethod: 'base64', files: [b64('%PDF-1.7 small'), b64('%PDF-1.7 ' + 'x'.repeat(30_000))] });
    assert.equal(bigMerge.status, 413, bigMerge.text);
    assert.match(bigMerge.json.error, /'files\[1\]' is larger than the 20 KB limit/);
    assert.equal((await q.call('GET', '/api/v2/balance', { key: qKey })).json.data.credits, 1000);
  });

  test('a full queue answers 429 with a clear message and charges only what ran', async () => {
    const calls = await Promise.all(
      [1, 2, 3].map((i) => q.call('POST', '/api/v1/convert-to-pdf', { key: qKey, body: { inputMethod: 'base64', file: b64(`queued ${i}`) } })),
    );
    const ok = calls.filter((c) => c.status === 200);
    const busy = calls.filter((c) => c.status === 429);
    assert.equal(ok.length + busy.length, 3, calls.map((c) => c.text).join('\n'));
    assert.ok(busy.length >= 1, 'at least one request overflowed');
    assert.ok(ok.length >= 1, 'the queued request ran');
    for (const b of busy) assert.match(b.json.error, /busy/i);
    assert.equal((await q.call('GET', '/api/v2/balance', { key: qKey })).json.data.credits, 1000 - 50 * ok.length);

    // Retention is capped at 1.5 s on this server: the link stops working once it has passed.
    const url = ok[0]!.json.url as string;
    const expires = Number(new URL(url).searchParams.get('expires')) * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, expires - Date.now()) + 200));
    assert.equal((await download(url)).status, 404);
  });
});
