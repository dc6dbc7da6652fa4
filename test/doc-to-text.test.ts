/**
 * doc-to-text through the real server (issue 15): no model and no key needed; PDF and DOCX text
 * with page selections, a scanned page read by OCR, URL inputs through the SSRF guard, credits
 * (20 per success, nothing for a failure).
 *
 * Priced and bounded per page (issue 24, finding 4 and the 14,400-pt page of 11): pages without
 * a text layer are rendered and OCRed at 5 credits each on top of the call's 20, the hold grows to
 * cover them before the first is rendered (a key that cannot cover them gets 403 and pays
 * nothing), a selection over the page cap is a free 400 before any work, and a page too large to
 * OCR is a 400 naming it, never silently left out. One server for both (a server per file costs
 * seconds of CPU; the page cap of 12 is above every document of the first part).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { scannedPdf, textPdf } from './fixtures/extract/make.js';

let s: TestServer;
let key: string;
let origin: Server;
let originUrl: string;
const docx = readFileSync(join(import.meta.dirname, 'fixtures', 'documents', 'writer.docx'));
const b64 = (b: Buffer) => b.toString('base64');

before(async () => {
  origin = createServer((req, res) => {
    if (req.url === '/report.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end(textPdf(['Remote alpha', 'Remote beta']));
    if (req.url === '/letter') return res.writeHead(200, { 'content-type': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }).end(docx);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  s = await startServer({ env: { ALLOW_PRIVATE_NETWORK: 'true', OFFICE_POOL_SIZE: '1', DOCUMENTS_PREWARM: 'false', DOC_TEXT_MAX_PAGES: '12' }, serviceConfig: pluginsConfig(['documents', 'doc_text']) });
  ({ key } = await s.createKey({ credits: 1000 }));
});
after(async () => {
  await s?.close();
  origin?.close();
});

const docToText = (body: unknown, k = key) => s.call('POST', '/api/v1/doc-to-text', { key: k, body });
const pages = (body: unknown, k = key) => s.call('POST', '/api/v2/run', { key: k, body: { type: 'capability', id: 'document_pages', input: body } });
const balance = async (k = key) => (await s.call('GET', '/api/v2/balance', { key: k })).json.data.credits;

test('PDF: all pages, "1, 2-", "!1" and "1, 3" select the right text; 20 credits a call', async () => {
  const pdf = b64(textPdf(['Alpha page', 'Bravo page', 'Charlie page']));
  const start = await balance();
  const all = await docToText({ inputMethod: 'base64', file: pdf });
  assert.equal(all.status, 200, all.text);
  assert.deepEqual(all.json, { text: 'Alpha page\n\nBravo page\n\nCharlie page' });
  assert.equal((await docToText({ inputMethod: 'base64', file: pdf, pages: '1, 2-' })).json.text, 'Alpha page\n\nBravo page\n\nCharlie page');
  assert.equal((await docToText({ inputMethod: 'base64', file: pdf, pages: '!1' })).json.text, 'Charlie page');
  assert.equal((await docToText({ inputMethod: 'base64', file: pdf, pages: '1, 3' })).json.text, 'Alpha page\n\nCharlie page');
  assert.equal(await balance(), start - 4 * 20);
});

test('DOCX through LibreOffice: both pages, and the last page alone', async () => {
  const r = await docToText({ inputMethod: 'base64', file: b64(docx) });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json, { text: 'Fixture writer page one\n\nFixture writer page two' });
  assert.equal((await docToText({ inputMethod: 'base64', file: b64(docx), pages: '!1' })).json.text, 'Fixture writer page two');
});

test('a scanned page (an image in a PDF, no text layer) is read by OCR', async () => {
  const r = await docToText({ inputMethod: 'base64', file: b64(scannedPdf('Scanned invoice number 4711')) });
  assert.equal(r.status, 200, r.text);
  assert.match(r.json.text, /Scanned invoice number 4711/);
});

test('URL inputs are fetched (type from Content-Type when the path has none)', async () => {
  const pdf = await docToText({ inputMethod: 'url', file: `${originUrl}/report.pdf`, pages: '2' });
  assert.deepEqual(pdf.json, { text: 'Remote beta' });
  const letter = await docToText({ inputMethod: 'url', file: `${originUrl}/letter`, pages: '1' });
  assert.deepEqual(letter.json, { text: 'Fixture writer page one' });
});

test('errors are 400 with a clear message and cost nothing', async () => {
  const start = await balance();
  const cases: [unknown, RegExp][] = [
    [{ inputMethod: 'base64' }, /'file' parameter is required/],
    [{ file: 'abc' }, /'inputMethod' parameter is required/],
    [{ inputMethod: 'base64', file: b64(textPdf(['One'])), pages: '5' }, /No page matches '5': the document has 1 page/],
    [{ inputMethod: 'base64', file: b64(textPdf(['One'])), pages: 'first' }, /Invalid page selection/],
    [{ inputMethod: 'url', file: `${originUrl}/missing.pdf` }, /HTTP 404/],
    [{ inputMethod: 'url', file: 'ftp://example.org/a.pdf' }, /http or https/],
  ];
  for (const [body, message] of cases) {
    const r = await docToText(body);
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.error, message);
  }
  assert.equal(await balance(), start);
});

/** A PDF of `n` small blank pages (no text layer: every page goes to OCR; poppler rebuilds the shifted xref). */
const blank = (n: number) => Buffer.from(textPdf(Array.from({ length: n }, () => '')).toString('latin1').replaceAll('/MediaBox [0 0 612 300]', '/MediaBox [0 0 144 72]'), 'latin1');

test('blank pages are OCRed and charged per page exactly: 20 + 5 × pages', async () => {
  const start = await balance();
  const six = await docToText({ inputMethod: 'base64', file: b64(blank(6)) });
  assert.equal(six.status, 200, six.text);
  assert.equal(six.headers['x-credits-charged'], String(20 + 6 * 5));
  assert.equal(six.json.text.trim(), '');
  assert.equal(await balance(), start - 50);
  // A text page costs the call alone; a selection of three blank pages three OCR pages (v2 lane).
  const text = await docToText({ inputMethod: 'base64', file: b64(textPdf(['Plain text page'])) });
  assert.equal(text.status, 200, text.text);
  assert.equal(await balance(), start - 50 - 20);
  const three = await pages({ inputMethod: 'base64', file: b64(blank(30)), pages: '2-3' });
  assert.equal(three.status, 200, three.text);
  assert.deepEqual(three.json.data.pages.map((p: { page: number; ocr: boolean }) => [p.page, p.ocr]), [[2, true], [3, true]]);
  assert.equal(await balance(), start - 50 - 20 - 30);
});

test('over the page cap: a free 400 before any work; a key that cannot cover the OCR pages: 403, free', async () => {
  const start = await balance();
  const over = await docToText({ inputMethod: 'base64', file: b64(blank(13)) });
  assert.equal(over.status, 400, over.text);
  assert.equal(over.json.error, `The selection has 13 pages; one call reads at most 12. Choose pages with 'pages' (e.g. "1-12").`);
  assert.equal(await balance(), start);
  // 30 credits hold the call and one OCR page, not four.
  const { key: poor } = await s.createKey({ credits: 30 });
  const refused = await docToText({ inputMethod: 'base64', file: b64(blank(4)) }, poor);
  assert.equal(refused.status, 403, refused.text);
  assert.equal(await balance(poor), 30);
  const one = await docToText({ inputMethod: 'base64', file: b64(blank(1)) }, poor);
  assert.equal(one.status, 200, one.text);
  assert.equal(await balance(poor), 5);
});

test('a 14,400-pt page is reported, not silently skipped; a long narrow page is rendered below 300 dpi and read', async () => {
  const start = await balance();
  // poppler rebuilds the cross-reference table the longer MediaBox shifts.
  const huge = Buffer.from(textPdf(['', '']).toString('latin1').replace('/MediaBox [0 0 612 300]', '/MediaBox [0 0 14400 14400]'), 'latin1');
  const r = await docToText({ inputMethod: 'base64', file: b64(huge) });
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json.error, 'Page 1 is too large to read by OCR (14400 × 14400 pt): it does not fit 50 megapixels at 50 dpi.');
  assert.equal(await balance(), start);
  const banner = Buffer.from(textPdf(['']).toString('latin1').replace('/MediaBox [0 0 612 300]', '/MediaBox [0 0 14400 300]'), 'latin1');
  const ok = await pages({ inputMethod: 'base64', file: b64(banner) });
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.json.data.pages.map((p: { ocr: boolean }) => p.ocr), [true]);
  assert.equal(await balance(), start - 25);
});

/** A valid 1-bit grey PNG of `w`×`h` white pixels (a few KB for any size). */
function png(w: number, h: number): Buffer {
  const row = Buffer.alloc(1 + Math.ceil(w / 8), 0xff);
  row[0] = 0;
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 1;
  ihdr[9] = 0;
  return Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: h }, () => row)))), chunk('IEND', Buffer.alloc(0))]);
}

test('an image over the OCR pixel cap is a free 400 before Tesseract decodes it; a small one costs 25', async () => {
  const start = await balance();
  const huge = await docToText({ inputMethod: 'base64', file: b64(png(10_000, 10_000)) });
  assert.equal(huge.status, 400, huge.text);
  assert.equal(huge.json.error, 'The image is too large to read by OCR (10000 × 10000 pixels): at most 50 megapixels and 32000 pixels a side.');
  assert.equal(await balance(), start);
  const small = await docToText({ inputMethod: 'base64', file: b64(png(300, 100)) });
  assert.equal(small.status, 200, small.text);
  assert.equal(await balance(), start - 25);
});
