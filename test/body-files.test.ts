/**
 * A large body's decoded files (issue 24): the worker that parses a body past JSON_OFF_THREAD_BYTES
 * writes each base64 file field to a file in the request's own folder, and the serving thread
 * gets only a handle (a flood of such bodies held ~20 MB of decoded bytes each on that thread,
 * whose full collections then delayed `/healthz`). Handlers hand the file to their tool, or read
 * its first bytes, without reading it whole; the folder is gone once the call is answered,
 * refused or hung up on. Answers and credits are those of a small body.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, watch, type FSWatcher } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';
import { assemble, textPng, tone } from './fixtures/extract/make.js';
import { decodedFields } from '../core/plugin/predecoded.js';
import { bodyScratchPrefix } from '../server/body/body-scratch.js';

/** CRC-32 of PNG chunks (zlib's polynomial). */
function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

/** One PNG chunk of `type` holding `data`. */
function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** `png` with a text chunk of about `bytes` after its header: the same picture, a larger file. */
function paddedPng(png: Buffer, bytes: number): Buffer {
  const ihdrEnd = 8 + 25;
  return Buffer.concat([png.subarray(0, ihdrEnd), chunk('tEXt', Buffer.from(`Comment\0${'x'.repeat(bytes)}`, 'latin1')), png.subarray(ihdrEnd)]);
}

/** A PNG that declares `width`×`height` (and holds no pixels), padded to about `bytes`. */
function declaredPng(width: number, height: number, bytes: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return paddedPng(Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IEND', Buffer.alloc(0))]), bytes);
}

/** The body folders this process's server makes (`cia-body-<instance>-…` in the temp dir), as they appear. */
function watchBodyFolders(): { seen: Set<string>; close(): void } {
  const seen = new Set<string>();
  const prefix = bodyScratchPrefix();
  const w: FSWatcher = watch(tmpdir(), (_event, name) => {
    if (name?.startsWith(prefix)) seen.add(join(tmpdir(), name));
  });
  return { seen, close: () => w.close() };
}

/** Waits until none of `dirs` exists (removal follows the response's close). */
async function gone(dirs: Iterable<string>, ms = 15_000): Promise<string[]> {
  const until = Date.now() + ms;
  let left = [...dirs].filter((d) => existsSync(d));
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    left = left.filter((d) => existsSync(d));
  }
  return left;
}

const b64 = (b: Buffer) => b.toString('base64');

/** A one-page PDF reading `text` whose content stream carries a comment of about `bytes`. */
function paddedPdf(text: string, bytes: number): Buffer {
  const content = Buffer.from(`BT /F1 24 Tf 40 150 Td (${text}) Tj ET\n% ${'x'.repeat(bytes)}\n`, 'latin1');
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 300] /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> >> >>',
    Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream', 'latin1')]),
  ]);
}

describe('a large body\'s decoded files', () => {
  let fake: ModelFake;
  let s: TestServer;
  let key: string;
  let folders: ReturnType<typeof watchBodyFolders>;
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  before(async () => {
    fake = await startFake();
    s = await startServer({
      env: { ...fake.env, JSON_OFF_THREAD_BYTES: '65536', DOCUMENTS_PREWARM: 'false', OFFICE_POOL_SIZE: '1' },
      serviceConfig: pluginsConfig(['documents', 'doc_text', 'extract', 'pdf_metadata']),
    });
    ({ key } = await s.createKey({ credits: 100_000 }));
    folders = watchBodyFolders();
  });
  after(async () => {
    folders?.close();
    await s?.close();
    await fake?.close();
  });

  it('reach the tool as files: an image is OCRed and an audio file transcribed as from a small body, the serving thread never reading them', async () => {
    const png = paddedPng(textPng('Parking ticket 2024'), 200_000);
    const read = decodedFields().read;
    assert.equal(typeof read, 'number', 'the serving thread counts the decoded files it reads');
    const before = folders.seen.size;
    const start = await credits();
    const r = await s.call('POST', '/api/v1/extract-image', { key, body: { inputMethod: 'base64', images: [b64(png), `data:image/png;base64,${b64(png)}`], prompt: 'Read it' } });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.match(fake.chats.at(-1)!.text, /Image 1: OCR text ===\n[^=]*Parking ticket 2024[^=]*=== Image 2: OCR text ===\n[^=]*Parking ticket 2024/);
    assert.equal(fake.chats.at(-1)!.images.length, 2);
    assert.equal(await credits(), start - 120);
    const audio = tone(20, 'wav');
    const a = await s.call('POST', '/api/v1/extract-audio', { key, body: { inputMethod: 'base64', audio: b64(audio), prompt: 'x' } });
    assert.equal(a.status, 200, a.text.slice(0, 300));
    assert.equal(Math.round(fake.transcriptions.at(-1)!.seconds), 20);
    assert.equal(decodedFields().read, read, 'no decoded file was read into the serving thread');
    assert.equal(folders.seen.size, before + 2, 'each body had its folder of decoded files');
    assert.deepEqual(await gone(folders.seen), [], 'the folders are gone once answered');
  });

  it('doc-to-text reads a PDF and an image as from a small body, and refuses an image too large for OCR, none read on the serving thread', async () => {
    const read = decodedFields().read;
    const before = folders.seen.size;
    const pdf = await s.call('POST', '/api/v1/doc-to-text', { key, body: { inputMethod: 'base64', file: b64(paddedPdf('Invoice 4711 paid', 200_000)) } });
    assert.equal(pdf.status, 200, pdf.text.slice(0, 300));
    assert.match(pdf.json.text, /Invoice 4711 paid/);
    const png = await s.call('POST', '/api/v1/doc-to-text', { key, body: { inputMethod: 'base64', file: b64(paddedPng(textPng('Parking ticket 2024'), 200_000)) } });
    assert.equal(png.status, 200, png.text.slice(0, 300));
    assert.match(png.json.text, /Parking ticket 2024/);
    const start = await credits();
    const bomb = await s.call('POST', '/api/v1/doc-to-text', { key, body: { inputMethod: 'base64', file: b64(declaredPng(16000, 16000, 200_000)) } });
    assert.equal(bomb.status, 400, bomb.text.slice(0, 300));
    assert.match(bomb.json.error, /^The image is too large to read by OCR \(16000 × 16000 pixels\)/);
    assert.equal(await credits(), start);
    assert.equal(decodedFields().read, read);
    assert.equal(folders.seen.size, before + 3);
    assert.deepEqual(await gone(folders.seen), []);
  });

  it('admits an image by its first bytes: a pixel bomb is refused for free, its file never read, its folder gone', async () => {
    const bomb = declaredPng(16000, 16000, 300_000);
    const { read, rebuilt } = decodedFields();
    const before = folders.seen.size;
    const start = await credits();
    const r = await s.call('POST', '/api/v1/extract-image', { key, body: { inputMethod: 'base64', images: Array(4).fill(b64(bomb)), prompt: 'x' } });
    assert.equal(r.status, 400, r.text.slice(0, 300));
    assert.deepEqual(r.json, { error: "'images[0]' is too large: 16000×16000 pixels (256 megapixels); images may have at most 50 megapixels." });
    // The same answer as a small body's (under JSON_OFF_THREAD_BYTES, parsed where it arrives).
    const small = await s.call('POST', '/api/v1/extract-image', { key, body: { inputMethod: 'base64', images: [b64(declaredPng(16000, 16000, 10))], prompt: 'x' } });
    assert.deepEqual([small.status, small.json], [400, r.json]);
    assert.equal(await credits(), start);
    assert.deepEqual([decodedFields().read, decodedFields().rebuilt], [read, rebuilt], 'no file read, no string rebuilt');
    assert.equal(folders.seen.size, before + 1);
    assert.deepEqual(await gone(folders.seen), []);
  });

  it('a handler that needs the bytes reads them without blocking the serving thread; extract-document hands its file on unread', async () => {
    const { readSync } = decodedFields();
    assert.equal(typeof readSync, 'number', 'the serving thread counts its blocking reads of decoded files');
    let { read } = decodedFields();
    // merge-pdfs hands its files to its PDF thread, which reads them there: none read here.
    const merged = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'base64', files: [b64(paddedPdf('First', 120_000)), b64(paddedPdf('Second', 120_000))] } });
    assert.equal(merged.status, 200, merged.text.slice(0, 300));
    assert.equal(decodedFields().read, read);
    // doc-to-text of a text file reads it as text.
    const text = await s.call('POST', '/api/v1/doc-to-text', { key, body: { inputMethod: 'base64', file: b64(Buffer.from(`Delivery note 88\n${'word '.repeat(40_000)}`)), fileExtension: 'txt' } });
    assert.equal(text.status, 200, text.text.slice(0, 300));
    assert.match(text.json.text, /^Delivery note 88/);
    assert.equal(decodedFields().read, read + 1);
    assert.equal(decodedFields().readSync, readSync, 'no blocking read on the serving thread');
    // extract-document gives its file to doc_text's lane as the file it came in: nothing read, nothing encoded again.
    ({ read } = decodedFields());
    const start = await credits();
    const doc = await s.call('POST', '/api/v1/extract-document', { key, body: { inputMethod: 'base64', files: [b64(paddedPdf('Invoice 4711 paid', 200_000))], prompt: 'Which invoice?' } });
    assert.equal(doc.status, 200, doc.text.slice(0, 300));
    assert.match(fake.chats.at(-1)!.text, /Invoice 4711 paid/);
    assert.equal(doc.json.pages, 1);
    assert.equal(await credits(), start - doc.json.creditUsage);
    assert.deepEqual([decodedFields().read, decodedFields().readSync], [read, readSync], 'the file was not read on the serving thread');
    assert.deepEqual(await gone(folders.seen), []);
  });

  it('removes the folder of a call whose caller hangs up while its file is being read', async () => {
    const png = paddedPng(textPng('Hung up on'), 200_000);
    const body = JSON.stringify({ inputMethod: 'base64', images: Array(3).fill(b64(png)), prompt: 'x' });
    const before = new Set(folders.seen);
    const { hostname, port } = new URL(s.url);
    const socket = net.connect(Number(port), hostname);
    socket.on('error', () => undefined);
    socket.write(`POST /api/v1/extract-image HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
    socket.write(body);
    // Hung up on as soon as its folder exists (the files are being written or read by then).
    const until = Date.now() + 15_000;
    let made: string[] = [];
    while (made.length === 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 5));
      made = [...folders.seen].filter((d) => !before.has(d));
    }
    socket.destroy();
    assert.equal(made.length, 1, 'the body had its folder');
    assert.deepEqual(await gone(made), []);
  });
});
