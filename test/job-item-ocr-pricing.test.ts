/**
 * Issue 24, "price what costs", inside a job's items and a synchronous batch: a batch_scrape job
 * item whose URL is a scanned PDF is charged its 10 plus doc_text's 5 per page read by OCR (the
 * item's hold grows before the first page is rendered), on the embedded store and on PostgreSQL;
 * an item whose key cannot cover the OCR fails with INSUFFICIENT_CREDITS before any pdftoppm or
 * tesseract runs and costs nothing; a cancel mid-OCR stops the tools and charges nothing for that
 * item. The synchronous batch reports as `creditUsage` what it was charged, and its usage row
 * lists the OCR pages beside its own pages. Tools are seen in /proc (this process is the server).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toolPids } from './helpers/tool-pids.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { waitJob } from './helpers/jobs.js';
import { textPdf } from './fixtures/extract/make.js';
import { until } from './helpers/until.js';

/** A PDF of `n` small blank pages: no text layer, so every page goes to OCR. */
const blank = (n: number) => Buffer.from(textPdf(Array.from({ length: n }, () => '')).toString('latin1').replaceAll('/MediaBox [0 0 612 300]', '/MediaBox [0 0 144 72]'), 'latin1');

let origin: Server;
let originUrl: string;

before(async () => {
  origin = createServer((req, res) => {
    const scan = /^\/scan-(\d+)\.pdf(?:\?.*)?$/.exec(req.url ?? '');
    if (scan) return res.writeHead(200, { 'content-type': 'application/pdf' }).end(blank(Number(scan[1])));
    if (req.url === '/page.html') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><p>A plain page</p></body></html>');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
after(() => origin?.close());

for (const { name, make } of BACKENDS) {
  describe(`OCR inside job items and batches on ${name}`, () => {
    let backend: Backend;
    let s: TestServer;
    before(async () => {
      backend = await make();
      s = await startServer({
        env: { ...backend.env, ALLOW_PRIVATE_NETWORK: 'true', OFFICE_POOL_SIZE: '1', DOCUMENTS_PREWARM: 'false' },
        serviceConfig: pluginsConfig(['web', 'documents', 'doc_text']),
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
    const submit = (key: string, urls: string[]) => s.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'batch_scrape', input: { urls, renderJs: false } } });
    const items = async (key: string, id: string) => (await s.call('GET', `/api/v2/jobs/${id}?limit=100`, { key })).json.data.results.items as any[];

    it('a batch job of two scanned PDFs and a page: each PDF item charged 10 + 5 per OCR page, the job total exact', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      // One page and two: PDFs of different lengths, each page read by OCR (seconds of CPU each).
      const r = await submit(key, [`${originUrl}/scan-1.pdf`, `${originUrl}/scan-2.pdf`, `${originUrl}/page.html`]);
      assert.equal(r.status, 202, r.text);
      const job = await waitJob(s, key, r.json.data.id);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      assert.deepEqual(job.progress, { done: 3, failed: 0, total: 3 });
      const price = 10 + 5 * 1 + (10 + 5 * 2) + 10;
      assert.equal(job.creditsCharged, price);
      assert.deepEqual(await account(key), { credits: 1000 - price, reserved: 0 });
    });

    it('an item whose key cannot cover its OCR pages fails INSUFFICIENT_CREDITS before any OCR, free', async () => {
      // 24 credits: the item's 10 would fit, its three OCR pages (15 more) with it would not.
      const { key } = await s.createKey({ credits: 24 });
      const tools = new Set<number>();
      const timer = setInterval(() => toolPids(['pdftoppm', 'tesseract']).forEach((p) => tools.add(p)), 5);
      try {
        const r = await submit(key, [`${originUrl}/scan-3.pdf?store=${encodeURIComponent(name)}`]);
        assert.equal(r.status, 202, r.text);
        const job = await waitJob(s, key, r.json.data.id);
        assert.deepEqual(job.progress, { done: 0, failed: 1, total: 1 });
        const [item] = await items(key, r.json.data.id);
        assert.equal(item.status, 'failed');
        assert.equal(item.error.code, 'INSUFFICIENT_CREDITS');
        assert.equal(job.creditsCharged, 0);
      } finally {
        clearInterval(timer);
      }
      assert.equal(tools.size, 0, 'no pdftoppm or tesseract ran');
      assert.deepEqual(await account(key), { credits: 24, reserved: 0 });
    });

    it('a cancel mid-OCR stops the tools; the item being read is not charged', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      const pages = 40;
      const r = await submit(key, [`${originUrl}/scan-${pages}.pdf`]);
      assert.equal(r.status, 202, r.text);
      await until(() => toolPids(['pdftoppm', 'tesseract']).length > 0, 'the first OCR tool');
      // The item's hold covers its own 10 and its OCR pages while they are read.
      assert.equal((await account(key)).reserved, 10 + 5 * pages);
      assert.equal((await s.call('DELETE', `/api/v2/jobs/${r.json.data.id}`, { key })).status, 200);
      await until(async () => toolPids(['pdftoppm', 'tesseract']).length === 0 && (await account(key)).reserved === 0, 'the tools to stop and the hold to be released');
      const job = await waitJob(s, key, r.json.data.id);
      assert.equal(job.status, 'cancelled');
      assert.equal(job.creditsCharged, 0);
      assert.deepEqual(await account(key), { credits: 1000, reserved: 0 });
    });

    it('a synchronous batch reports as creditUsage what it was charged; its usage row lists the OCR pages', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      // A one-page scan: its OCR page count (1) differs from the batch's pages (2), so the row shows each.
      const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'batch_scrape', input: { urls: [`${originUrl}/scan-1.pdf`, `${originUrl}/page.html`, `${originUrl}/missing.pdf`], renderJs: false } } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.data.completed, 2);
      const charged = 1000 - (await account(key)).credits;
      assert.equal(charged, 10 + 5 * 1 + 10);
      assert.equal(r.json.data.creditUsage, charged);
      const row = await until(async () => {
        const u = await s.call('GET', '/api/v2/usage?objectId=batch_scrape', { key });
        return (u.json?.data?.items ?? [])[0] as { units?: Record<string, number> } | undefined;
      }, 'the usage row');
      assert.deepEqual(row.units, { pages: 2, ocr_pages: 1 });
    });

    it('an MCP batch that runs as a job (progress token) answers as creditUsage what its items were charged', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'batch_scrape', arguments: { urls: [`${originUrl}/scan-1.pdf`, `${originUrl}/page.html`], renderJs: false }, _meta: { progressToken: 'ocr' } } };
      const res = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });
      assert.equal(res.status, 200);
      const messages = (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
      const answer = messages[messages.length - 1];
      assert.equal(answer.id, 1, JSON.stringify(answer));
      const jobs = (await s.call('GET', '/api/v2/jobs', { key })).json.data.items as { id: string }[];
      assert.equal(jobs.length, 1, 'it ran as a job');
      const charged = 1000 - (await account(key)).credits;
      assert.equal(charged, 10 + 5 * 1 + 10);
      assert.equal(answer.result.structuredContent.creditUsage, charged);
    });
  });
}
