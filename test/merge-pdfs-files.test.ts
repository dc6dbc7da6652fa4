/**
 * Issue 24, "nothing hostile on the event loop", for merge-pdfs' inputs: the PDF thread parses
 * them, and it reads them from files itself. The thread that serves requests never holds a whole
 * input: a large body's decoded file field is copied file to file into the call's scratch folder
 * (it used to be read whole into that thread's memory, then copied again to the PDF thread), a URL
 * is streamed into a file there. The merged file is what it was, the owner-password input (which
 * goes through qpdf) included, and the scratch folder is gone once the call is answered.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { startServer, type TestServer } from './helpers/server.js';
import { paddedPdf } from './helpers/padded-pdf.js';
import { decodedFields } from '../core/plugin/predecoded.js';

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
let s: TestServer;
let key: string;
let scratch: string;
let restricted: Buffer;
let origin: Server;
let originUrl: string;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'merge-pdfs-files-'));
  const plain = join(scratch, 'plain.pdf');
  execFileSync('sh', ['-c', `cat > ${plain}`], { input: paddedPdf('Restricted', 100_000) });
  execFileSync('qpdf', ['--encrypt', '', 'owner-pw', '256', '--', plain, join(scratch, 'restricted.pdf')]);
  restricted = readFileSync(join(scratch, 'restricted.pdf'));
  origin = createServer((req, res) => {
    const pages: Record<string, Buffer> = { '/a.pdf': paddedPdf('From a URL', 100_000), '/locked.pdf': restricted };
    const body = pages[req.url ?? ''];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(body);
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  // Bodies past 64 KB are parsed off the serving thread, their file fields decoded into files.
  s = await startServer({ env: { JSON_OFF_THREAD_BYTES: '65536', ALLOW_PRIVATE_NETWORK: 'true', DOCUMENTS_PREWARM: 'false', OFFICE_POOL_SIZE: '1' } });
  ({ key } = await s.createKey({ credits: 100_000 }));
});

after(async () => {
  await s?.close();
  origin?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The page count of the file at `url` (a download link the call answered). */
async function pagesOf(url: string): Promise<number> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  return (await PDFDocument.load(new Uint8Array(await res.arrayBuffer()))).getPageCount();
}

/** The call's scratch folders left in the temp dir. */
const leftovers = () => readdirSync(tmpdir()).filter((n) => n.startsWith('merge-pdfs-') && !scratch.endsWith(n));

test('merge-pdfs of a large body: its decoded files go to the PDF thread unread here, an owner-password one through qpdf', async () => {
  const { read, readSync } = decodedFields();
  const res = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'base64', files: [b64(paddedPdf('First', 120_000)), b64(restricted), b64(paddedPdf('Third', 120_000))] } });
  assert.equal(res.status, 200, res.text.slice(0, 300));
  assert.equal(await pagesOf(res.json.url), 3);
  assert.deepEqual([decodedFields().read, decodedFields().readSync], [read, readSync], 'no decoded file was read into the serving thread');
  assert.deepEqual(leftovers(), [], 'the call\'s scratch folder is gone');
});

test('merge-pdfs by URL and of a small body merge as before; a bad input is still a 400 naming it', async () => {
  const byUrl = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'url', files: [`${originUrl}/a.pdf`, `${originUrl}/locked.pdf`] } });
  assert.equal(byUrl.status, 200, byUrl.text.slice(0, 300));
  assert.equal(await pagesOf(byUrl.json.url), 2);
  const small = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'base64', files: [b64(paddedPdf('One', 100)), b64(paddedPdf('Two', 100))] } });
  assert.equal(small.status, 200, small.text.slice(0, 300));
  assert.equal(await pagesOf(small.json.url), 2);
  const missing = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'url', files: [`${originUrl}/a.pdf`, `${originUrl}/gone.pdf`] } });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.error, "Could not download 'files[1]': the server answered HTTP 404.");
  const notPdf = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'base64', files: [b64(paddedPdf('One', 100_000)), b64(Buffer.from('plain text, no PDF'.repeat(10_000)))] } });
  assert.equal(notPdf.status, 400);
  assert.equal(notPdf.json.error, 'files[1] is not a PDF file.');
  assert.deepEqual(leftovers(), []);
});
