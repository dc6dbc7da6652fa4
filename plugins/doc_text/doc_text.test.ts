/** doc_text through the real executor (no server): page selection, PDF text, plain text, images by OCR, limits. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { pluginHarness, type PluginHarness } from '../../core/testing/index.js';
import { examplePdfBase64 } from '../../core/catalogue.js';
import plugin from './index.js';
import { selectPages } from './pages.js';

let h: PluginHarness;
before(async () => {
  h = await pluginHarness(plugin, { env: { DOC_TEXT_MAX_FILE_MB: '1' } });
});
after(() => h.close());

const status = (p: Promise<unknown>) => p.then(() => 200, (e: { status?: number }) => e.status ?? 0);
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');

test('page selections: lists, open ranges and pages counted from the end', () => {
  assert.deepEqual(selectPages(undefined, 3), [1, 2, 3]);
  assert.deepEqual(selectPages('1, 2-', 5), [1, 2, 3, 4, 5]);
  assert.deepEqual(selectPages('1, 2, 3-7', 10), [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(selectPages('!1', 9), [9]);
  assert.deepEqual(selectPages('!3-!2, 1', 9), [1, 7, 8]);
  assert.deepEqual(selectPages('-2', 9), [1, 2]);
  assert.deepEqual(selectPages('4-9', 5), [4, 5]);
  assert.throws(() => selectPages('7', 5), /has 5 pages/);
  assert.throws(() => selectPages('0', 5), /start at 1/);
  assert.throws(() => selectPages('a-b', 5), /Invalid page selection/);
});

test('doc_to_text reads a PDF text layer and charges 20', async () => {
  const r = await h.capability('doc_to_text', { inputMethod: 'base64', file: examplePdfBase64() });
  assert.deepEqual(r.data, { text: 'Hello from doc_to_text' });
  assert.equal(r.credits, 20);
  assert.equal(r.provider, 'doc_text');
});

test('document_pages returns the page count and each page; plain text is one page as is', async () => {
  const r = await h.capability('document_pages', { inputMethod: 'base64', file: examplePdfBase64(), pages: '!1' });
  assert.deepEqual(r.data, { pageCount: 1, format: 'pdf', pages: [{ page: 1, text: 'Hello from doc_to_text', ocr: false }] });
  const t = await h.capability('doc_to_text', { inputMethod: 'base64', file: b64('Plain words\n\n\n\nand more  \n') });
  assert.equal(t.data.text, 'Plain words\n\nand more');
});

test('an image is read by OCR', async () => {
  // The example PDF rendered to a PNG at 200 dpi: the same words, as pixels.
  const png = execFileSync('pdftoppm', ['-r', '200', '-gray', '-png', '-singlefile', '-'], { input: Buffer.from(examplePdfBase64(), 'base64') });
  const r = await h.capability('document_pages', { inputMethod: 'base64', file: b64(png) });
  assert.equal(r.data.format, 'png');
  assert.equal(r.data.pages[0].ocr, true);
  assert.match(r.data.pages[0].text, /Hello from doc_to_text/);
});

test('bad inputs are 400s and oversize is 413', async () => {
  assert.equal(await status(h.capability('doc_to_text', { inputMethod: 'base64', file: '***' })), 400);
  assert.equal(await status(h.capability('doc_to_text', { inputMethod: 'base64', file: b64('%PDF-1.4 broken') })), 400);
  assert.equal(await status(h.capability('doc_to_text', { inputMethod: 'base64', file: examplePdfBase64(), pages: '3' })), 400);
  assert.equal(await status(h.capability('doc_to_text', { inputMethod: 'url', file: 'not a url' })), 400);
  assert.equal(await status(h.capability('doc_to_text', { inputMethod: 'base64', file: b64(Buffer.alloc(1_100_000, 65)) })), 413);
});
