/**
 * Issue 27 gaps an audit found, through the real server on loopback pages: a plain-text page and
 * a PDF behind a URL answer every text format asked for (and refuse, free, what needs a page the
 * browser shows: screenshots and actions; and any format with `parsePDF: false`); an HTML page
 * sent as an attachment, or a PDF sent as HTML, is read on the browser path as on the plain one; `waitFor` needs the
 * browser and a `waitFor` longer than the timeout is a free 502; `tag` needs change tracking.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { examplePdfBase64 } from '../core/catalogue.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

const pdf = Buffer.from(examplePdfBase64(), 'base64');
const TEXT = 'Notes <b>&</b>\n\nSee https://example.com/a, and (https://example.org/wiki/Foo_(bar)).';

let site: http.Server;
let base = '';

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  switch (new URL(req.url!, 'http://x').pathname) {
    case '/notes.txt':
      return res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(TEXT);
    case '/a.pdf':
      return res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    case '/pdf-as-html':
      return res.writeHead(200, { 'content-type': 'text/html' }).end(pdf);
    case '/attached':
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-disposition': 'attachment; filename="page.html"' }).end('<!doctype html><title>Attached</title><p>An attached page.</p>');
    default:
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Page</title><p>A page.</p>');
  }
}

before(async () => {
  ({ server: site, base } = await serveLoopback(handler));
});
after(() => {
  closeLoopback(site);
});

describe('scrape_page: the gaps of issue 27', () => {
  let s: TestServer;
  let key = '';
  const run = (input: unknown) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input } });
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  /** The call's status and error, and what it cost. */
  const outcome = async (input: unknown) => {
    const was = await credits();
    const res = await run(input);
    return { status: res.status, error: res.json.error as string | undefined, cost: was - (await credits()), data: res.json.data };
  };

  before(async () => {
    s = await startServer({
      serviceConfig: pluginsConfig(['web', 'doc_text']),
      env: { ALLOW_HOSTS: '127.0.0.1', WEB_PAGE_TIMEOUT_MS: '8000', BROWSER_MAX_PAGES: '1', OFFICE_POOL_SIZE: '1', DOCUMENTS_PREWARM: 'false' },
    });
    key = (await s.createKey({ credits: 10_000 })).key;
  });
  after(() => s?.close());

  it('a text page answers every text format asked for, on both paths, at the price of one scrape', async () => {
    for (const renderJs of [false, true]) {
      const r = await outcome({ url: `${base}/notes.txt`, renderJs, formats: ['rawHtml', 'markdown', 'html', 'links'] });
      assert.equal(r.status, 200, r.error);
      assert.equal(r.cost, 10);
      assert.equal(r.data.rawHtml, TEXT, 'the body as served');
      assert.equal(r.data.content, TEXT, 'content holds the first format');
      assert.equal(r.data.markdown, TEXT);
      assert.equal(r.data.html, '<pre>Notes &lt;b&gt;&amp;&lt;/b&gt;\n\nSee https://example.com/a, and (https://example.org/wiki/Foo_(bar)).</pre>');
      assert.deepEqual(r.data.links, ['https://example.com/a', 'https://example.org/wiki/Foo_(bar)']);
    }
  });

  it('a PDF behind a URL answers its text in every text format', async () => {
    const r = await outcome({ url: `${base}/a.pdf`, formats: ['html', 'links', 'rawHtml', 'markdown'] });
    assert.equal(r.status, 200, r.error);
    assert.equal(r.cost, 10);
    assert.match(r.data.markdown, /Hello from doc_to_text/);
    assert.equal(r.data.html, `<pre>${r.data.markdown}</pre>`);
    assert.equal(r.data.content, r.data.html);
    assert.equal(r.data.rawHtml, r.data.markdown, "a document's extracted text: it has no markup");
    assert.deepEqual(r.data.links, []);
  });

  it('a screenshot or actions on a text page or a PDF are a free 400 that says why', async () => {
    const cases = [
      [{ url: `${base}/notes.txt`, formats: ['markdown', 'screenshot'] }, `Cannot take a screenshot of ${base}/notes.txt: it is not a web page (text/plain).`],
      [{ url: `${base}/a.pdf`, formats: ['screenshot@fullPage'] }, `Cannot take a screenshot of ${base}/a.pdf: it is not a web page (application/pdf).`],
      [{ url: `${base}/a.pdf`, actions: [{ type: 'executeJavascript', script: 'return 1' }] }, `Cannot run actions on ${base}/a.pdf: it is not a web page (application/pdf).`],
      [{ url: `${base}/notes.txt`, actions: [{ type: 'scrape' }] }, `Cannot run actions on ${base}/notes.txt: it is not a web page (text/plain).`],
    ] as const;
    for (const [input, error] of cases) {
      const r = await outcome(input);
      assert.deepEqual([r.status, r.error, r.cost], [400, error, 0], JSON.stringify(input));
    }
  });

  it("'parsePDF: false' with formats is a free 400; without them the file link as before", async () => {
    const r = await outcome({ url: `${base}/a.pdf`, parsePDF: false, formats: ['html'] });
    assert.deepEqual([r.status, r.error, r.cost], [400, `Cannot make html of ${base}/a.pdf: with 'parsePDF: false' a document is answered as its file link in 'content' (leave out 'formats', or 'parsePDF').`, 0]);
    const link = await outcome({ url: `${base}/a.pdf`, parsePDF: false });
    assert.equal(link.status, 200, link.error);
    assert.match(link.data.content, /^https?:\/\//);
  });

  it('v1 /scrape keeps its answer shape for a text page: the text in content, with formats their fields', async () => {
    const legacy = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/notes.txt`, renderJs: false, format: 'html' } });
    assert.equal(legacy.status, 200, legacy.text);
    assert.equal(legacy.json.content, TEXT);
    assert.equal(legacy.json.html, undefined);
    const extras = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/notes.txt`, renderJs: false, formats: ['links', 'markdown'] } });
    assert.equal(extras.status, 200, extras.text);
    assert.equal(extras.json.content, 'https://example.com/a\nhttps://example.org/wiki/Foo_(bar)');
    assert.deepEqual(extras.json.links, ['https://example.com/a', 'https://example.org/wiki/Foo_(bar)']);
    assert.equal(extras.json.markdown, TEXT);
  });

  it('an HTML page sent as an attachment, or a PDF sent as HTML, is read with the browser as without it; actions on the attachment are a free 400', async () => {
    for (const renderJs of [true, false]) {
      const r = await outcome({ url: `${base}/attached`, renderJs });
      assert.equal(r.status, 200, `renderJs ${renderJs}: ${r.error}`);
      assert.match(r.data.content, /An attached page\./);
    }
    // PDF bytes under an HTML type: Chromium shows the bytes as text; both paths read the PDF.
    for (const renderJs of [true, false]) {
      const r = await outcome({ url: `${base}/pdf-as-html`, renderJs });
      assert.equal(r.status, 200, `renderJs ${renderJs}: ${r.error}`);
      assert.equal(r.data.content, 'Hello from doc_to_text');
    }
    const acted = await outcome({ url: `${base}/attached`, actions: [{ type: 'scrape' }] });
    assert.deepEqual([acted.status, acted.error, acted.cost], [400, `Cannot run actions on ${base}/attached: the browser did not show it as a page (text/html; charset=utf-8).`, 0]);
  });

  it("waitFor needs the browser; one longer than the call's timeout is a free 502", async () => {
    const plain = await outcome({ url: `${base}/page`, renderJs: false, waitFor: 500 });
    assert.deepEqual([plain.status, plain.error, plain.cost], [400, "'renderJs: false' cannot be combined with actions, waitFor, waitForSelector, mobile, blockAds or a screenshot format: those need the browser.", 0]);
    const late = await outcome({ url: `${base}/page`, timeout: 1000, waitFor: 5000 });
    assert.deepEqual([late.status, late.error, late.cost], [502, "'waitFor' (5000 ms) did not finish within the scrape's timeout.", 0]);
    const inTime = await outcome({ url: `${base}/page`, waitFor: 50 });
    assert.equal(inTime.status, 200, inTime.error);
    assert.equal(inTime.cost, 10);
  });

  it("'tag' without the changeTracking format is a free 400", async () => {
    const r = await outcome({ url: `${base}/page`, tag: 'weekly' });
    assert.deepEqual([r.status, r.error, r.cost], [400, "'tag' needs the changeTracking format in 'formats'.", 0]);
  });
});
