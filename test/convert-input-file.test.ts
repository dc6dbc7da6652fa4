/**
 * Issue 24, "nothing hostile on the event loop": convert-to-pdf takes its input as a file. A large
 * body's decoded file, or a URL's download, used to be read whole into the serving thread's
 * memory (`inputBytes`, `readFile`) for the format checks and LibreOffice's pool; now it goes to
 * the call's scratch folder, the checks read only its start, end, ZIP directory, or search it a
 * chunk at a time, and the pool copies the file. Answers and refusals are what they were.
 * The test process is the server, so the counters of predecoded.ts are the server's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { DOCX_HEAD, DOCX_TAIL, zip } from './helpers/zip.js';
import { decodedFields } from '../core/plugin/predecoded.js';

/** A DOCX of `paragraphs` paragraphs of `text`, padded by a stored entry so its base64 leaves a large body as a file. */
function paddedDocx(paragraphs: number, text: string): Buffer {
  return zip([
    { name: '[Content_Types].xml', data: '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>' },
    { name: '_rels/.rels', data: '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>' },
    { name: 'word/document.xml', data: DOCX_HEAD + `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`.repeat(paragraphs) + DOCX_TAIL },
    { name: 'word/media/padding.bin', data: randomBytes(200_000), store: true },
  ]);
}

/**
 * An OLE container (its signature, then noise) whose only stream name, `name` in UTF-16, sits
 * across the first megabyte's end: a check that reads the head alone, or searches chunk by chunk
 * without overlap, misses it.
 */
function oleNaming(name: string): Buffer {
  const signature = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  const marker = Buffer.from(name, 'utf16le');
  const noise = Buffer.alloc((1 << 20) - 8 - 6, 0x5a);
  return Buffer.concat([signature, noise, marker, Buffer.alloc(300_000, 0x5a)]);
}

const b64 = (b: Buffer) => b.toString('base64');
const letter = paddedDocx(3, 'Delivery note 88 signed');
// 600,000 paragraphs: about 20 MB of XML, over the 5 MB this server's archives may declare.
const bomb = paddedDocx(600_000, 'A');
const text = Buffer.from(`Visitors from Zurich 4711\n${'word '.repeat(20_000)}`);
const encrypted = oleNaming('EncryptionInfo');
// A PDF padded past the head the checks read: refused by its first bytes.
const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n%'), Buffer.alloc(200_000, 0x41)]);
const noise = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919 + 13) % 251));

describe('convert-to-pdf reads its input as a file, never whole on the serving thread', () => {
  let s: TestServer;
  let key: string;
  let origin: Server;
  let originUrl: string;
  const served: Record<string, Buffer> = { '/letter.docx': letter, '/bomb.docx': bomb, '/visitors': text, '/locked': encrypted, '/noise.docx': noise, '/already': pdf };
  before(async () => {
    origin = createServer((req, res) => {
      const body = served[req.url ?? ''];
      if (!body) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    s = await startServer({
      env: { JSON_OFF_THREAD_BYTES: '65536', DOCUMENTS_PREWARM: 'false', OFFICE_POOL_SIZE: '1', OFFICE_ZIP_MAX_UNCOMPRESSED_MB: '5', ALLOW_PRIVATE_NETWORK: 'true' },
      serviceConfig: pluginsConfig(['documents']),
    });
    ({ key } = await s.createKey({ credits: 10_000 }));
  });
  after(async () => {
    await s?.close();
    origin?.close();
  });
  const convert = (body: object) => s.call('POST', '/api/v1/convert-to-pdf', { key, body });
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  const reads = () => [decodedFields().read, decodedFields().readSync];
  /** The text of the PDF a 200 answer links to. */
  async function pdfText(res: { status: number; text: string; json: any }): Promise<string> {
    assert.equal(res.status, 200, res.text.slice(0, 300));
    const out = Buffer.from(await (await fetch(res.json.url)).arrayBuffer());
    assert.equal(out.subarray(0, 5).toString(), '%PDF-');
    return execFileSync('pdftotext', ['-layout', '-', '-'], { input: out }).toString();
  }

  it('a DOCX and a text file, told apart by their bytes, in a large body and by URL: PDFs of them, no file read here', async () => {
    for (const file of [letter, text]) assert.ok(b64(file).length > 100_000, 'the file leaves the body as a file');
    const start = reads();
    const made = decodedFields().made;
    assert.match(await pdfText(await convert({ inputMethod: 'base64', file: b64(letter) })), /Delivery note 88 signed/);
    assert.match(await pdfText(await convert({ inputMethod: 'url', file: `${originUrl}/letter.docx` })), /Delivery note 88 signed/);
    assert.match(await pdfText(await convert({ inputMethod: 'base64', file: b64(text) })), /Visitors from Zurich 4711/);
    assert.match(await pdfText(await convert({ inputMethod: 'url', file: `${originUrl}/visitors` })), /Visitors from Zurich 4711/);
    assert.equal(decodedFields().made, made + 2, 'both large bodies were decoded into files');
    assert.deepEqual(reads(), start, 'no decoded file was read into the serving thread');
  });

  it('the same refusals, free, the files unread: a zip bomb, an encrypted OLE file, a PDF, noise named .docx', async () => {
    const before = await credits();
    const start = reads();
    const bombText = 'The .docx file declares more than 5 MB of uncompressed content, the most this service opens.';
    const locked = 'The file is password-protected; remove the password and retry.';
    const cases: [object, number, string][] = [
      [{ inputMethod: 'base64', file: b64(bomb) }, 400, bombText],
      [{ inputMethod: 'url', file: `${originUrl}/bomb.docx` }, 400, bombText],
      [{ inputMethod: 'base64', file: b64(encrypted) }, 400, locked],
      // Named .docx by its data: URL: an encrypted OOXML file is an OLE container.
      [{ inputMethod: 'base64', file: `data:application/vnd.openxmlformats-officedocument.wordprocessingml.document;base64,${b64(encrypted)}` }, 400, locked],
      [{ inputMethod: 'url', file: `${originUrl}/locked` }, 400, locked],
      [{ inputMethod: 'base64', file: b64(pdf) }, 400, 'Unsupported format: the file is already a PDF.'],
      [{ inputMethod: 'url', file: `${originUrl}/already` }, 400, 'Unsupported format: the file is already a PDF.'],
      [{ inputMethod: 'url', file: `${originUrl}/noise.docx` }, 400, 'The file is not a valid .docx document.'],
    ];
    for (const [body, status, error] of cases) {
      const res = await convert(body);
      assert.deepEqual([res.status, res.json?.error], [status, error], JSON.stringify(body).slice(0, 120));
    }
    assert.deepEqual(reads(), start, 'no decoded file was read into the serving thread');
    assert.equal(await credits(), before);
  });
});
