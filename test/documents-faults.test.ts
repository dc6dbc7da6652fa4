/**
 * Documents lane faults through the real server (spec §4.6, issue 5): LibreOffice that cannot
 * start answers at once with the spec's 500 and charges nothing; URL inputs over the size cap
 * are a 413 naming the input; one failed download of a merge cancels the others; and a closed
 * server leaves no LibreOffice process behind.
 */
import { processesUsing } from '../core/engines/processes.js';
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** Processes whose command line names `dir` (driver, bwrap, soffice, soffice.bin). */
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

for (const binary of ['/nonexistent/soffice', '/bin/false']) {
  describe(`LibreOffice unavailable (OFFICE_BINARY=${binary})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer({ serviceConfig, env: { OFFICE_POOL_SIZE: '1', OFFICE_BINARY: binary } });
      key = (await s.createKey({ credits: 1000 })).key;
    });
    after(async () => s?.close());

    test('conversions fail with 500 "LibreOffice is not available." and are not charged', async () => {
      for (let i = 0; i < 2; i++) {
        const res = await s.call('POST', '/api/v1/convert-to-pdf', { key, body: { inputMethod: 'base64', file: b64(`attempt ${i}`) } });
        assert.equal(res.status, 500, res.text);
        assert.equal(res.json.error, 'Failed to convert to PDF: LibreOffice is not available.');
      }
      assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 1000);
    });
  });
}

describe('URL inputs over the size cap and failed merge downloads', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    // No LibreOffice needed: every request here fails before a conversion would start.
    s = await startServer({ serviceConfig, env: { ALLOW_PRIVATE_NETWORK: 'true', DOCUMENTS_MAX_FILE_MB: '0.02', OFFICE_BINARY: '/nonexistent/soffice' } });
    key = (await s.createKey({ credits: 1000 })).key;
  });
  after(async () => s?.close());

  test('a URL input over the cap is a 413 naming the input and the limit, like base64; nothing charged', async () => {
    const call = (path: string, body: unknown) => s.call('POST', path, { key, body });
    const one = await call('/api/v1/convert-to-pdf', { inputMethod: 'url', file: `${originUrl}/big.docx` });
    assert.equal(one.status, 413, one.text);
    assert.equal(one.json.error, "'file' is larger than the 20 KB limit.");
    const merge = await call('/api/v1/merge-pdfs', { inputMethod: 'url', files: [`${originUrl}/small.pdf`, `${originUrl}/big.pdf`] });
    assert.equal(merge.status, 413, merge.text);
    assert.equal(merge.json.error, "'files[1]' is larger than the 20 KB limit.");
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 1000);
  });

  test('when one download of a merge fails, the others are cancelled', async () => {
    const res = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'url', files: [`${originUrl}/slow.pdf`, `${originUrl}/missing.pdf`] } });
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.error, /files\[1\].*HTTP 404/);
    assert.equal(await slowEnded, 'aborted');
  });
});

test('a closed server leaves no LibreOffice process behind', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'documents-close-'));
  const officeDir = join(scratch, 'office');
  const s = await startServer({ serviceConfig, env: { OFFICE_POOL_SIZE: '2', OFFICE_WORK_DIR: officeDir, DOCUMENTS_PREWARM: 'true' } });
  try {
    const key = (await s.createKey({ credits: 1000 })).key;
    const res = await s.call('POST', '/api/v1/convert-to-pdf', { key, body: { inputMethod: 'base64', file: b64('before closing') } });
    assert.equal(res.status, 200, res.text);
    assert.ok(processesUsing(officeDir).length >= 2, 'the pool is running');
  } finally {
    await s.close();
  }
  assert.deepEqual(processesUsing(officeDir), []);
  await rm(scratch, { recursive: true, force: true });
});
