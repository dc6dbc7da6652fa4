/**
 * doc-to-text through the real server (issue 15): no model and no key needed; PDF and DOCX text
 * with page selections, a scanned page read by OCR, URL inputs through the SSRF guard, credits
 * (20 per success, nothing for a failure).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
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
  s = await startServer({ env: { ALLOW_PRIVATE_NETWORK: 'true', OFFICE_POOL_SIZE: '1', DOCUMENTS_PREWARM: 'false' }, serviceConfig: pluginsConfig(['documents', 'doc_text']) });
  ({ key } = await s.createKey({ credits: 1000 }));
});
after(async () => {
  await s?.close();
  origin?.close();
});

const docToText = (body: unknown) => s.call('POST', '/api/v1/doc-to-text', { key, body });
const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;

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
