/**
 * Documents lane faults through the real server (spec §4.6, issue 5): LibreOffice that cannot
 * start answers at once with the spec's 500 and charges nothing; URL inputs over the size cap
 * are a 413 naming the input; one failed download of a merge cancels the others. One server, with
 * no LibreOffice: every request here fails before a conversion would run.
 *
 * Proven elsewhere, so not here: a LibreOffice that starts and exits at once (the launcher exits
 * 1) gives the same "not available" failure and is retried until it works (documents-pool.test.ts);
 * stopping the service leaves no LibreOffice process behind (documents-jail.test.ts, two workers).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { createServer, type Server } from 'node:http';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

const serviceConfig = pluginsConfig(['documents']);
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');
const PDF = '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';

let origin: Server;
let originUrl: string;
/** How the slow download ended: `aborted` when the client went away before the body was complete. */
let slowEnded: Promise<'aborted' | 'finished'>;
let endSlow: (how: 'aborted' | 'finished') => void;

before(async () => {
  slowEnded = new Promise((resolve) => (endSlow = resolve));
  origin = createServer((req, res) => {
    if (req.url === '/big.docx' || req.url === '/big.pdf') return res.writeHead(200).end(Buffer.alloc(40_000, 0x41));
    if (req.url === '/small.pdf') return res.writeHead(200).end(PDF);
    if (req.url === '/slow.pdf') {
      let finished = false;
      res.writeHead(200, { 'content-length': String(PDF.length * 2) });
      res.write(PDF);
      // Completes only if nobody cancels it first.
      const timer = setTimeout(() => {
        finished = true;
        res.end(PDF);
      }, 15_000);
      res.on('close', () => {
        clearTimeout(timer);
        endSlow(finished ? 'finished' : 'aborted');
      });
      return;
    }
    res.writeHead(404).end('missing');
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as { port: number }).port}`;
});

after(async () => {
  origin.closeAllConnections();
  await new Promise((r) => origin.close(r));
});

let s: TestServer;
let key: string;
before(async () => {
  // LibreOffice cannot start here; nothing below needs it.
  s = await startServer({ serviceConfig, env: { OFFICE_POOL_SIZE: '1', ALLOW_PRIVATE_NETWORK: 'true', DOCUMENTS_MAX_FILE_MB: '0.02', OFFICE_BINARY: '/nonexistent/soffice' } });
  key = (await s.createKey({ credits: 1000 })).key;
});
after(async () => s?.close());

test('LibreOffice unavailable: conversions fail with 500 "LibreOffice is not available." and are not charged', async () => {
  const start = (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
  for (let i = 0; i < 2; i++) {
    const res = await s.call('POST', '/api/v1/convert-to-pdf', { key, body: { inputMethod: 'base64', file: b64(`attempt ${i}`) } });
    assert.equal(res.status, 500, res.text);
    assert.equal(res.json.error, 'Failed to convert to PDF: LibreOffice is not available.');
  }
  assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, start);
});

test('a URL input over the cap is a 413 naming the input and the limit, like base64; nothing charged', async () => {
  const start = (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
  const call = (path: string, body: unknown) => s.call('POST', path, { key, body });
  const one = await call('/api/v1/convert-to-pdf', { inputMethod: 'url', file: `${originUrl}/big.docx` });
  assert.equal(one.status, 413, one.text);
  assert.equal(one.json.error, "'file' is larger than the 20 KB limit.");
  const merge = await call('/api/v1/merge-pdfs', { inputMethod: 'url', files: [`${originUrl}/small.pdf`, `${originUrl}/big.pdf`] });
  assert.equal(merge.status, 413, merge.text);
  assert.equal(merge.json.error, "'files[1]' is larger than the 20 KB limit.");
  assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, start);
});

test('when one download of a merge fails, the others are cancelled', async () => {
  const res = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'url', files: [`${originUrl}/slow.pdf`, `${originUrl}/missing.pdf`] } });
  assert.equal(res.status, 400, res.text);
  assert.match(res.json.error, /files\[1\].*HTTP 404/);
  assert.equal(await slowEnded, 'aborted');
});
