/**
 * PDF object-stream bombs (issue 24, finding 2), through the real server: merge-pdfs parses
 * user PDFs in a worker thread under a decode cap, so a file whose one `/ObjStm` inflates far
 * past the cap is a free 400 naming it, `/healthz` keeps answering while the merge works, and
 * an ordinary merge still succeeds. The cap is lowered by environment so the bombs stay small.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';
import { pluginsConfig } from './helpers/plugins.js';
import { request, startServer, type TestServer } from './helpers/server.js';
import { assemble, textPdf } from './fixtures/extract/make.js';

let s: TestServer;
let key: string;
let origin: Server;
let originUrl: string;
/** Resolves once the origin has sent every bomb of the current merge. */
let served: Promise<void> = Promise.resolve();
let onServed = () => {};
let toServe = 0;

/** A one-page PDF whose object stream (object 4) inflates to `mb` MB of blanks. */
function bomb(mb: number): Buffer {
  const packed = deflateSync(Buffer.concat([Buffer.from('5 0 '), Buffer.alloc(mb * 1_000_000, 0x20)]), { level: 9 });
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>'),
    Buffer.concat([Buffer.from(`<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${packed.length} >>\nstream\n`), packed, Buffer.from('\nendstream')]),
  ];
  return assemble(objects, '1.5');
}

const big = bomb(64);

before(async () => {
  origin = createServer((req, res) => {
    if (req.url === '/small.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end(textPdf(['Small']));
    if (req.url?.startsWith('/bomb')) {
      return res.writeHead(200, { 'content-type': 'application/pdf' }).end(big, () => {
        if (--toServe === 0) onServed();
      });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  s = await startServer({ serviceConfig: pluginsConfig(['documents']), env: { ALLOW_PRIVATE_NETWORK: 'true', DOCUMENTS_PREWARM: 'false', PDF_MAX_DECODED_MB: '20' } });
  ({ key } = await s.createKey({ credits: 1000 }));
});
after(async () => {
  await s?.close();
  origin?.close();
});

const merge = (body: unknown) => s.call('POST', '/api/v1/merge-pdfs', { key, body });
const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;

test('an object-stream bomb by URL: a free 400 naming it, and /healthz keeps answering while the merge works', async () => {
  const start = await balance();
  toServe = 1;
  served = new Promise((r) => (onServed = r));
  let mergeDone = false;
  const pending = merge({ inputMethod: 'url', files: [`${originUrl}/bomb.pdf`, `${originUrl}/small.pdf`] }).finally(() => (mergeDone = true));
  // From the bomb's delivery until the merge answers, /healthz is asked again and again. Parsed on
  // the thread that serves requests, the bomb would hold one of those calls for most of the merge
  // (pdf-lib decodes a stream in one go); in a PDF thread each is answered at once. Compared with
  // the merge's own duration in the same run, so the check holds on a slow or a loaded machine.
  await served;
  const from = performance.now();
  let answered = 0;
  let longest = 0;
  while (!mergeDone) {
    const asked = performance.now();
    const health = await request(`${s.url}/healthz`, 'GET');
    assert.equal(health.status, 200);
    longest = Math.max(longest, performance.now() - asked);
    if (!mergeDone) answered++;
  }
  const mergeMs = performance.now() - from;
  assert.ok(answered >= 1 && longest * 2 < mergeMs, `/healthz was held ${Math.round(longest)} ms of a ${Math.round(mergeMs)} ms merge (${answered} answers during it)`);
  const res = await pending;
  assert.equal(res.status, 400, res.text);
  assert.equal(res.json.error, 'files[0] is refused: its compressed streams expand past the 20 MB this service decodes for one request.');
  assert.equal(await balance(), start);
});

test('variants: base64 with pdfua and with pdfa, the bomb second; an ordinary merge still works', async () => {
  const start = await balance();
  const fine = textPdf(['First']).toString('base64');
  for (const extra of [{ pdfua: true }, { pdfa: 'PDF/A-2b' }]) {
    const res = await merge({ inputMethod: 'base64', files: [fine, big.toString('base64')], ...extra });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.error, 'files[1] is refused: its compressed streams expand past the 20 MB this service decodes for one request.');
  }
  assert.equal(await balance(), start);
  const ok = await merge({ inputMethod: 'base64', files: [fine, textPdf(['Second']).toString('base64')] });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(await balance(), start - 50);
});
