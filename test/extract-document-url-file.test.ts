/**
 * Issue 24, "streamed downloads" and "nothing hostile on the event loop": extract-document's
 * files given by URL are written into the call's scratch folder as they arrive and handed to
 * doc_text's `document_pages` as those files. Before, each was held whole in memory (up to 30 MB,
 * 100 MB a call), encoded to base64 on the serving thread for the inner call, which decoded it
 * there again. The answer and the price are unchanged; the counters of predecoded.ts (the test
 * process is the server) show each download handed on as a file, never read nor rebuilt here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';
import { textPdf } from './fixtures/extract/make.js';
import { decodedFields } from '../core/plugin/predecoded.js';

describe('extract-document by URL hands its downloads on as files', () => {
  let fake: ModelFake;
  let s: TestServer;
  let origin: Server;
  let originUrl: string;
  before(async () => {
    fake = await startFake();
    origin = createServer((req, res) => {
      if (req.url === '/invoice.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end(textPdf(['Invoice 4711 paid', 'Page two of the invoice']));
      if (req.url === '/note.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end(textPdf(['Delivery note 88']));
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    s = await startServer({
      env: { ...fake.env, ALLOW_PRIVATE_NETWORK: 'true', DOCUMENTS_PREWARM: 'false', OFFICE_POOL_SIZE: '1' },
      serviceConfig: pluginsConfig(['documents', 'doc_text', 'extract']),
    });
  });
  after(async () => {
    await s?.close();
    await fake?.close();
    origin?.close();
  });

  it('two PDFs by URL: the model reads both, 100 + 10 per page, each download handed on unread', async () => {
    const { key } = await s.createKey({ credits: 1000 });
    const before = decodedFields();
    const r = await s.call('POST', '/api/v1/extract-document', { key, body: { inputMethod: 'url', files: [`${originUrl}/invoice.pdf`, `${originUrl}/note.pdf`], prompt: 'Which invoice?' } });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.match(fake.chats.at(-1)!.text, /Invoice 4711 paid[\s\S]*Page two of the invoice[\s\S]*Delivery note 88/);
    assert.deepEqual([r.json.pages, r.json.fileCount, r.json.creditUsage], [3, 2, 130]);
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 1000 - 130);
    const now = decodedFields();
    assert.equal(now.made - before.made, 2, 'each download became a file-backed input');
    assert.deepEqual([now.read, now.rebuilt], [before.read, before.rebuilt], 'neither was read nor encoded on the serving thread');
  });
});
