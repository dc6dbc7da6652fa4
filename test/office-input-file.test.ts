/**
 * Issue 24, "nothing hostile on the event loop": an office document doc-to-text reads through
 * LibreOffice goes to the office engine as a file. A large body's decoded file, or a file
 * downloaded into the call's scratch folder, used to be read whole into the serving thread's
 * memory (`inputBytes`) to be admitted and written out again for LibreOffice; now it is copied
 * into the job's folder and only its ZIP directory is read (zip bombs are still refused, free).
 * The test process is the server, so the counters of predecoded.ts are the server's (a URL's
 * scratch file is read through the same file-backed input).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { DOCX_HEAD, DOCX_TAIL, zip } from './helpers/zip.js';
import { decodedFields } from '../core/plugin/predecoded.js';

/**
 * A DOCX of `paragraphs` paragraphs of `text`, with a stored entry of random bytes so it is
 * large enough (over 64K characters of base64) to leave a large body as a file.
 */
function paddedDocx(paragraphs: number, text: string): Buffer {
  return zip([
    { name: '[Content_Types].xml', data: '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>' },
    { name: '_rels/.rels', data: '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>' },
    { name: 'word/document.xml', data: DOCX_HEAD + `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`.repeat(paragraphs) + DOCX_TAIL },
    { name: 'word/media/padding.bin', data: randomBytes(120_000), store: true },
  ]);
}

const b64 = (b: Buffer) => b.toString('base64');
const letter = paddedDocx(3, 'Delivery note 88 signed');
// 600,000 paragraphs: about 20 MB of XML, over the 5 MB this server's archives may declare.
const bomb = paddedDocx(600_000, 'A');

describe('office documents reach LibreOffice as files, never read on the serving thread', () => {
  let s: TestServer;
  let key: string;
  let origin: Server;
  let originUrl: string;
  before(async () => {
    origin = createServer((req, res) => {
      if (req.url === '/letter.docx') return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(letter);
      if (req.url === '/bomb.docx') return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bomb);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    s = await startServer({
      env: { JSON_OFF_THREAD_BYTES: '65536', DOCUMENTS_PREWARM: 'false', OFFICE_POOL_SIZE: '1', OFFICE_ZIP_MAX_UNCOMPRESSED_MB: '5', ALLOW_PRIVATE_NETWORK: 'true' },
      serviceConfig: pluginsConfig(['documents', 'doc_text']),
    });
    ({ key } = await s.createKey({ credits: 10_000 }));
  });
  after(async () => {
    await s?.close();
    origin?.close();
  });
  const docToText = (body: object) => s.call('POST', '/api/v1/doc-to-text', { key, body });
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;

  it('doc-to-text of a DOCX in a large body and by URL: the text, the file never read here', async () => {
    assert.ok(b64(letter).length > 100_000, 'the DOCX leaves the body as a file');
    const { read, readSync } = decodedFields();
    const sent = await docToText({ inputMethod: 'base64', file: b64(letter), fileExtension: 'docx' });
    assert.equal(sent.status, 200, sent.text.slice(0, 300));
    assert.match(sent.json.text, /Delivery note 88 signed/);
    const byUrl = await docToText({ inputMethod: 'url', file: `${originUrl}/letter.docx` });
    assert.equal(byUrl.status, 200, byUrl.text.slice(0, 300));
    assert.match(byUrl.json.text, /Delivery note 88 signed/);
    assert.deepEqual([decodedFields().read, decodedFields().readSync], [read, readSync], 'neither file was read into the serving thread');
  });

  it('a DOCX zip bomb in a large body or by URL is refused from its directory alone, free', async () => {
    const start = await credits();
    const { read } = decodedFields();
    const expected = 'The .docx file declares more than 5 MB of uncompressed content, the most this service opens.';
    const sent = await docToText({ inputMethod: 'base64', file: b64(bomb), fileExtension: 'docx' });
    assert.deepEqual([sent.status, sent.json.error], [400, expected]);
    const byUrl = await docToText({ inputMethod: 'url', file: `${originUrl}/bomb.docx` });
    assert.deepEqual([byUrl.status, byUrl.json.error], [400, expected]);
    assert.equal(decodedFields().read, read, 'neither file was read into the serving thread');
    assert.equal(await credits(), start);
  });
});
