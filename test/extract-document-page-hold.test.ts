/**
 * Issue 24, "price what costs": extract-document's own 10 credits per page are held as soon as
 * doc_text's `document_pages` has counted a document's pages, before it reads or OCRs any. Before,
 * only doc_text's 5 per OCR page was held before the OCR and the 10 per page after the document
 * came back: a key able to pay 100 + 5/page but not 100 + 15/page had every page OCRed and then a
 * free 403, and could repeat that. Now such a key gets the 403 with no pdftoppm or tesseract run;
 * a document past the call's page limit is a 400 before the OCR too; a key that can pay is charged
 * exactly 100 + 10 per page + 5 per OCR page. On the embedded store and on PostgreSQL. Tools are
 * seen in /proc (this process is the server: they descend from it).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { watchingTools } from './helpers/tool-pids.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { textPdf } from './fixtures/extract/make.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';

/** A PDF of `n` small blank pages: no text layer, so every page goes to OCR. */
const blank = (n: number) => Buffer.from(textPdf(Array.from({ length: n }, () => '')).toString('latin1').replaceAll('/MediaBox [0 0 612 300]', '/MediaBox [0 0 144 72]'), 'latin1');
/** A PDF of `n` pages with a text layer: read by pdftotext, no OCR. */
const texts = (n: number) => textPdf(Array.from({ length: n }, (_, i) => `Plain text of page ${i + 1}`));

/** Runs `work` while watching for the OCR tools (test/helpers/tool-pids.ts). */
const watchingOcr = <T>(work: () => Promise<T>) => watchingTools(['pdftoppm', 'tesseract'], work);

let fake: ModelFake;
before(async () => {
  fake = await startFake();
});
after(async () => {
  await fake?.close();
});

for (const { name, make } of BACKENDS) {
  describe(`extract-document holds its pages before any OCR on ${name}`, () => {
    let backend: Backend;
    let s: TestServer;
    before(async () => {
      backend = await make();
      s = await startServer({
        env: { ...backend.env, ...fake.env, OFFICE_POOL_SIZE: '1', DOCUMENTS_PREWARM: 'false' },
        serviceConfig: pluginsConfig(['documents', 'doc_text', 'extract']),
      });
    });
    after(async () => {
      await s?.close();
      await backend?.dispose();
    });
    const account = async (key: string) => {
      const { credits, reserved } = (await s.call('GET', '/api/v2/balance', { key })).json.data;
      return { credits, reserved } as { credits: number; reserved: number };
    };
    const extract = (key: string, files: Buffer[]) =>
      s.call('POST', '/api/v1/extract-document', { key, body: { inputMethod: 'base64', files: files.map((b) => b.toString('base64')), prompt: 'What is on the pages?' } });

    it('a key that covers the OCR but not 10 per page as well gets 403 before any page is OCRed, and pays nothing', async () => {
      // Three scanned pages: 100 + 30 + 15 = 145. 140 covers the call's first hold (110) and the
      // OCR's 15, which is all the old code held before it OCRed every page.
      const { key } = await s.createKey({ credits: 140 });
      const chats = fake.chats.length;
      const { result, tools } = await watchingOcr(() => extract(key, [blank(3)]));
      assert.equal(result.status, 403, result.text);
      assert.equal(result.json.error, 'Insufficient credits. Please top up your account.');
      assert.equal(tools.size, 0, 'no pdftoppm or tesseract ran');
      assert.equal(fake.chats.length, chats, 'the model was not asked');
      assert.deepEqual(await account(key), { credits: 140, reserved: 0 });
    });

    it('the same with a scan after a text document: its pages are held before its OCR', async () => {
      // 100 + 10 × (2 + 3) + 5 × 3 = 165; 160 covers all but the second document's 10 per page.
      const { key } = await s.createKey({ credits: 160 });
      const { result, tools } = await watchingOcr(() => extract(key, [texts(2), blank(3)]));
      assert.equal(result.status, 403, result.text);
      assert.equal(tools.size, 0, 'no pdftoppm or tesseract ran');
      assert.deepEqual(await account(key), { credits: 160, reserved: 0 });
    });

    it('documents past the call\'s page limit are a 400 before the last one is OCRed, and free', async () => {
      // 195 text pages, then 10 scanned ones: 205 pages, over the 200 one call reads.
      const { key } = await s.createKey({ credits: 10_000 });
      const { result, tools } = await watchingOcr(() => extract(key, [texts(195), blank(10)]));
      assert.equal(result.status, 400, result.text);
      assert.match(result.json.error, /more than 200 pages/);
      assert.equal(tools.size, 0, 'no pdftoppm or tesseract ran');
      assert.deepEqual(await account(key), { credits: 10_000, reserved: 0 });
    });

    it('a key that covers it all is served and charged exactly 100 + 10 per page + 5 per OCR page', async () => {
      const { key } = await s.createKey({ credits: 165 });
      const { result, tools } = await watchingOcr(() => extract(key, [texts(2), blank(3)]));
      assert.equal(result.status, 200, result.text);
      assert.ok(tools.size > 0, 'the scanned pages were OCRed');
      assert.equal(result.json.pages, 5);
      assert.equal(result.json.creditUsage, 165);
      assert.equal(result.headers['x-credits-charged'], '165');
      assert.deepEqual(await account(key), { credits: 0, reserved: 0 });
    });
  });
}
