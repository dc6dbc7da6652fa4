/**
 * Issue 24, "price what costs", through another capability: OCR reached by a capability that
 * runs doc_to_text / document_pages inside its own call (`ctx.call`) is priced as doc-to-text
 * prices it (5 credits per page read by OCR), on top of the outer call's own price. The inner
 * call grows the outer call's hold before the first page is rendered, so a key that cannot cover
 * the OCR is refused (403, free) before any `pdftoppm` or `tesseract` runs; a hang-up mid-OCR
 * stops the tools and costs nothing; two calls racing for one key's last credits are charged
 * exactly, on the embedded store and on PostgreSQL. Tools are seen in /proc (this process is the server: they descend from it).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toolPids, watchingTools } from './helpers/tool-pids.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { postgresBackend } from './helpers/storage.js';
import { textPdf } from './fixtures/extract/make.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';
import { until } from './helpers/until.js';

let s: TestServer;
let fake: ModelFake;
let origin: Server;
let originUrl: string;

/** A PDF of `n` small blank pages: no text layer, so every page goes to OCR (poppler rebuilds the shifted xref). */
const blank = (n: number) => Buffer.from(textPdf(Array.from({ length: n }, () => '')).toString('latin1').replaceAll('/MediaBox [0 0 612 300]', '/MediaBox [0 0 144 72]'), 'latin1');
const b64 = (b: Buffer) => b.toString('base64');

before(async () => {
  fake = await startFake();
  origin = createServer((req, res) => {
    const scan = /^\/scan-(\d+)\.pdf$/.exec(req.url ?? '');
    if (scan) return res.writeHead(200, { 'content-type': 'application/pdf' }).end(blank(Number(scan[1])));
    if (req.url === '/text.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end(textPdf(['A page with its own text layer']));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  s = await startServer({
    env: { ...fake.env, ALLOW_PRIVATE_NETWORK: 'true', OFFICE_POOL_SIZE: '1', DOCUMENTS_PREWARM: 'false' },
    serviceConfig: pluginsConfig(['web', 'documents', 'doc_text', 'extract']),
  });
});
after(async () => {
  await s?.close();
  await fake?.close();
  origin?.close();
});

/** A key's spendable and held credits. */
const account = async (k: string) => {
  const { credits, reserved } = (await s.call('GET', '/api/v2/balance', { key: k })).json.data;
  return { credits, reserved } as { credits: number; reserved: number };
};
const scrapeV2 = (k: string, url: string) => s.call('POST', '/api/v2/run', { key: k, body: { type: 'capability', id: 'scrape_page', input: { url, renderJs: false } } });
const scrapeV1 = (k: string, url: string) => s.call('POST', '/api/v1/scrape', { key: k, body: { url, renderJs: false } });
const extract = (k: string, files: Buffer[]) => s.call('POST', '/api/v1/extract-document', { key: k, body: { inputMethod: 'base64', files: files.map(b64), prompt: 'What is on the pages?' } });

/** Runs `work` while watching for the OCR tools (test/helpers/tool-pids.ts). */
const watchingOcr = <T>(work: () => Promise<T>) => watchingTools(['pdftoppm', 'tesseract'], work);

test('scrape of a scanned PDF behind a URL: 10 + 5 per OCR page on v2 and v1; a text PDF stays 10', async () => {
  const { key } = await s.createKey({ credits: 1000 });
  const v2 = await watchingOcr(() => scrapeV2(key, `${originUrl}/scan-3.pdf`));
  assert.equal(v2.result.status, 200, v2.result.text);
  assert.ok(v2.tools.size > 0, 'the scanned pages were rendered and read by OCR');
  assert.deepEqual(await account(key), { credits: 1000 - 25, reserved: 0 });
  const v1 = await scrapeV1(key, `${originUrl}/scan-2.pdf`);
  assert.equal(v1.status, 200, v1.text);
  assert.equal(v1.headers['x-credits-charged'], '20');
  assert.equal((await account(key)).credits, 1000 - 25 - 20);
  const text = await scrapeV2(key, `${originUrl}/text.pdf`);
  assert.equal(text.status, 200, text.text);
  assert.match(text.json.data.content, /A page with its own text layer/);
  assert.equal((await account(key)).credits, 1000 - 25 - 20 - 10);
});

test('scrape: a key that cannot cover the OCR pages gets 403 before any page is rendered, and pays nothing', async () => {
  // 24 credits hold the scrape (10) but not its three OCR pages (15 more).
  const { key } = await s.createKey({ credits: 24 });
  for (const call of [scrapeV2, scrapeV1]) {
    const { result, tools } = await watchingOcr(() => call(key, `${originUrl}/scan-3.pdf`));
    assert.equal(result.status, 403, result.text);
    assert.equal(tools.size, 0, 'no pdftoppm or tesseract ran');
    assert.deepEqual(await account(key), { credits: 24, reserved: 0 });
  }
});

test('extract-document: a key that cannot cover the OCR pages gets 403 before any OCR; one that can pays 100 + 10 per page + 5 per OCR page', async () => {
  // 110 credits hold the call and one page; the three OCR pages need 15 more.
  const { key: poor } = await s.createKey({ credits: 110 });
  const refused = await watchingOcr(() => extract(poor, [blank(3)]));
  assert.equal(refused.result.status, 403, refused.result.text);
  assert.equal(refused.tools.size, 0, 'no pdftoppm or tesseract ran');
  assert.deepEqual(await account(poor), { credits: 110, reserved: 0 });

  const { key } = await s.createKey({ credits: 1000 });
  const chats = fake.chats.length;
  const served = await extract(key, [blank(3), textPdf(['Plain page one', 'Plain page two'])]);
  assert.equal(served.status, 200, served.text);
  const price = 100 + 10 * 5 + 5 * 3;
  assert.equal(served.json.creditUsage, price);
  assert.equal(served.json.pages, 5);
  assert.equal(fake.chats.length, chats + 1);
  assert.deepEqual(await account(key), { credits: 1000 - price, reserved: 0 });
});

test('a hang-up mid-OCR stops the tools and is free; the hold covered the pages while they were read', async () => {
  const { key } = await s.createKey({ credits: 1000 });
  const pages = 40;
  const hangUp = new AbortController();
  const call = fetch(`${s.url}/api/v1/scrape`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${originUrl}/scan-${pages}.pdf`, renderJs: false }),
    signal: hangUp.signal,
  }).catch((err: unknown) => err);
  await until(() => toolPids(['pdftoppm', 'tesseract']).length > 0, 'the first OCR tool');
  assert.deepEqual(await account(key), { credits: 1000 - (10 + 5 * pages), reserved: 10 + 5 * pages });
  hangUp.abort();
  assert.equal(((await call) as Error).name, 'AbortError');
  await until(async () => toolPids(['pdftoppm', 'tesseract']).length === 0 && (await account(key)).reserved === 0, 'the tools to stop and the hold to be released');
  assert.equal((await account(key)).credits, 1000);
});

test('two scrapes racing for one key: exactly one is served and charged, the other refused, never below zero (embedded store and PostgreSQL)', async () => {
  const pg = await postgresBackend();
  const onPg = await startServer({ env: { ...pg.env, ALLOW_PRIVATE_NETWORK: 'true', OFFICE_POOL_SIZE: '1', DOCUMENTS_PREWARM: 'false' }, serviceConfig: pluginsConfig(['web', 'documents', 'doc_text']) });
  try {
    for (const server of [s, onPg]) {
      // 35 credits: both hold 10, then only one can grow by its three OCR pages.
      const { key } = await server.createKey({ credits: 35 });
      const race = () => server.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input: { url: `${originUrl}/scan-3.pdf`, renderJs: false } } });
      const answers = await Promise.all([race(), race()]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 403], answers.map((a) => a.text).join('\n'));
      const { credits, reserved } = (await server.call('GET', '/api/v2/balance', { key })).json.data;
      assert.deepEqual({ credits, reserved }, { credits: 10, reserved: 0 }, server === s ? 'embedded' : 'postgres');
    }
  } finally {
    await onPg.close();
    await pg.dispose();
  }
});
