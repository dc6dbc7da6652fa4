/**
 * Web lane, black-box through the real server (issue 4): scrape, crawl, screenshot and extract
 * against a site served by this test on loopback, and credits. The SSRF guard, robots.txt across
 * origins and the provider plugins have files of their own (test/web-*.test.ts).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startServer, type TestServer } from './helpers/server.js';
import { hits, serveSite, webConfig } from './helpers/web-site.js';

let pdfBytes: Uint8Array;

describe('web lane through the real server', () => {
  let site: Awaited<ReturnType<typeof serveSite>>;
  let base = '';
  let s: TestServer;
  let key: string;
  const scrape = (body: unknown) => s.call('POST', '/api/v1/scrape', { key, body });
  const crawl = (body: unknown) => s.call('POST', '/api/v1/crawl', { key, body });
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;

  before(async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([300, 200]);
    page.drawText('Quarterly report text inside a PDF', { x: 20, y: 100, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
    pdfBytes = await doc.save();
    site = await serveSite(() => pdfBytes);
    base = site.base;
    s = await startServer({
      serviceConfig: webConfig(),
      env: { ALLOW_PRIVATE_NETWORK: 'true', WEB_PAGE_TIMEOUT_MS: '1500', WEB_MAX_PAGE_BYTES: '1000000', BROWSER_MAX_PAGES: '1' },
    });
    ({ key } = await s.createKey({ credits: 5000 }));
  });
  after(async () => {
    await s?.close();
    site?.close();
  });

  it('scrape (plain fetch): GFM markdown with absolute links, tables, code blocks and metadata; 10 credits', async () => {
    const before = await credits();
    const res = await scrape({ url: `${base}/static`, renderJs: false });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-ratelimit-limit'] !== undefined, true);
    const b = res.json;
    assert.equal(b.title, 'Static page');
    assert.equal(b.url, `${base}/static`);
    assert.equal(b.format, 'markdown');
    assert.equal(b.cleaned, false);
    assert.match(b.content, /# Hello static/);
    assert.match(b.content, new RegExp(`\\[the article\\]\\(${base}/article\\)`));
    assert.match(b.content, /\| Name \| Qty \|\n\| --- \| --- \|\n\| Apples \| 3 \|/);
    assert.match(b.content, /```js\nconst x = 1;\n```/);
    assert.equal(b.metadata.description, 'A static test page.');
    assert.equal(b.metadata.language, 'en-GB');
    assert.equal(b.metadata.canonical, 'https://example.org/static');
    assert.equal(b.metadata.ogTitle, 'OG static');
    assert.equal(b.metadata.ogImage, `${base}/img/card.png`);
    assert.equal(b.metadata.statusCode, 200);
    assert.match(b.metadata.contentType, /text\/html/);
    assert.equal(await credits(), before - 10);
  });

  it('scrape: only renderJs:true sees content built by JavaScript (browser is the default)', async () => {
    const plain = await scrape({ url: `${base}/js`, renderJs: false });
    assert.equal(plain.status, 200);
    assert.doesNotMatch(plain.json.content, /Rendered by script/);
    const rendered = await scrape({ url: `${base}/js` });
    assert.equal(rendered.status, 200, rendered.text);
    assert.match(rendered.json.content, /Rendered by script/);
    assert.equal(rendered.json.title, 'JS page');
  });

  it('scrape cleaned keeps the article and drops nav, ads, sidebar and footer; html format works', async () => {
    const full = await scrape({ url: `${base}/article`, renderJs: false });
    assert.match(full.json.content, /BUY CHEAP WIDGETS/);
    for (const format of ['markdown', 'html']) {
      const res = await scrape({ url: `${base}/article`, cleaned: true, format, renderJs: false });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.cleaned, true);
      assert.match(res.json.content, /The article body explains/);
      for (const junk of [/About us menu/, /BUY CHEAP WIDGETS/, /Copyright footer/, /trending sidebar/]) assert.doesNotMatch(res.json.content, junk);
    }
    const html = await scrape({ url: `${base}/static`, format: 'html', renderJs: false });
    assert.match(html.json.content, /<table>/);
    assert.match(html.json.content, new RegExp(`href="${base}/article"`));
  });

  it('scrape follows redirects (final url), returns a 404 page with its status, and reads PDFs as text', async () => {
    const red = await scrape({ url: `${base}/redirect`, renderJs: false });
    assert.equal(red.json.url, `${base}/static`);
    const redJs = await scrape({ url: `${base}/redirect` });
    assert.equal(redJs.json.url, `${base}/static`);
    const missing = await scrape({ url: `${base}/missing`, renderJs: false });
    assert.equal(missing.status, 200);
    assert.equal(missing.json.metadata.statusCode, 404);
    assert.match(missing.json.content, /No such page/);
    for (const renderJs of [false, true]) {
      const pdf = await scrape({ url: `${base}/doc.pdf`, renderJs });
      assert.equal(pdf.status, 200, pdf.text);
      assert.match(pdf.json.content, /Quarterly report text inside a PDF/);
      assert.equal(pdf.json.metadata.contentType, 'application/pdf');
    }
  });

  it('scrape errors: other content types, timeouts and oversized pages are clear and cost nothing', async () => {
    const before = await credits();
    const img = await scrape({ url: `${base}/image.png`, renderJs: false });
    assert.equal(img.status, 400);
    assert.match(img.json.error, /Unsupported content type 'image\/png'/);
    // The browser displays a feed, but it is not a web page: both modes refuse it the same way.
    for (const renderJs of [false, true]) {
      const feed = await scrape({ url: `${base}/feed.xml`, renderJs });
      assert.equal(feed.status, 400, `renderJs ${renderJs}: ${feed.text}`);
      assert.match(feed.json.error, /Unsupported content type 'application\/rss\+xml'/);
    }
    const slow = await scrape({ url: `${base}/slow`, renderJs: false });
    assert.equal(slow.status, 502);
    assert.match(slow.json.error, /Failed to retrieve .*\/slow: no response within 1.5 s/);
    const slowJs = await scrape({ url: `${base}/slow` });
    assert.equal(slowJs.status, 502);
    assert.match(slowJs.json.error, /no response within 1.5 s/);
    const huge = await scrape({ url: `${base}/huge`, renderJs: false });
    assert.equal(huge.status, 413);
    assert.match(huge.json.error, /larger than the 1 MB limit/);
    const hugeJs = await scrape({ url: `${base}/huge` });
    assert.equal(hugeJs.status, 413);
    assert.equal(await credits(), before, 'failed scrapes release their reservation');
  });

  it('scrape input errors use the spec texts', async () => {
    assert.deepEqual((await scrape({})).json, { error: "'url' parameter is required and must be a non-empty string." });
    assert.deepEqual((await scrape({ url: '' })).json, { error: "'url' parameter is required and must be a non-empty string." });
    assert.equal((await scrape({ url: `${base}/static`, format: 'pdf' })).json.error, "'format' must be one of: markdown, html, screenshot.");
    const ftp = await scrape({ url: 'ftp://example.org/file' });
    assert.equal(ftp.status, 400);
    assert.match(ftp.json.error, /only http and https/);
    // A bare host is taken as https (people paste those); this one does not resolve.
    const bare = await scrape({ url: 'no-such-host.invalid/page', renderJs: false });
    assert.equal(bare.status, 502);
    assert.equal(bare.json.error, 'Failed to retrieve https://no-such-host.invalid/page: the host name does not resolve.');
  });

  it('scrape format screenshot and capability:screenshot store PNGs behind temporary URLs', async () => {
    const res = await scrape({ url: `${base}/static`, format: 'screenshot' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.format, 'screenshot');
    const img = await fetch(res.json.content);
    assert.equal(img.status, 200);
    const bytes = Buffer.from(await img.arrayBuffer());
    assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
    const shot = await s.call('POST', '/api/v2/run', {
      key,
      body: { type: 'capability', id: 'screenshot', input: { url: `${base}/article`, fullPage: true, viewport: { width: 600, height: 400 } } },
    });
    assert.equal(shot.status, 200, shot.text);
    assert.equal(shot.json.data.contentType, 'image/png');
    assert.equal(shot.json.data.width, 600);
    assert.ok(shot.json.data.height > 400, 'full page is taller than the viewport');
    const png = Buffer.from(await (await fetch(shot.json.data.url)).arrayBuffer());
    assert.equal(png.readUInt32BE(16), 600);
    // Flip the signature's first hex digit (to a different one) and the link stops working.
    const tampered = await fetch(shot.json.data.url.replace(/sig=([0-9a-f])/, (_m: string, c: string) => `sig=${c === '0' ? '1' : '0'}`));
    assert.equal(tampered.status, 404);
  });

  it('web.extract returns the main content, metadata and links', async () => {
    const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'web.extract', input: { url: `${base}/article`, renderJs: false } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data.title, 'Article');
    assert.match(res.json.data.text, /The article body explains/);
    assert.doesNotMatch(res.json.data.text, /Copyright footer/);
    // A short page with no article block is returned whole, with its metadata.
    const short = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'web.extract', input: { url: `${base}/static`, renderJs: false } } });
    assert.equal(short.status, 200, short.text);
    assert.match(short.json.data.text, /Hello static/);
    assert.equal(short.json.data.metadata.canonical, 'https://example.org/static');
    assert.ok(short.json.data.links.includes(`${base}/article`));
  });

  it('crawl: limit, depth, robots.txt, no duplicates, cycles and external links ignored; charged per page', async () => {
    const before = await credits();
    const res = await crawl({ url: `${base}/site/p0`, limit: 100, depth: 2 });
    assert.equal(res.status, 200, res.text);
    const urls: string[] = res.json.results.map((r: { url: string }) => r.url);
    // Depth 2 from p0: p0, p1-p3, p4-p12 = 13 pages.
    assert.equal(res.json.pages, 13);
    assert.deepEqual(new Set(urls), new Set(Array.from({ length: 13 }, (_, i) => `${base}/site/p${i}`)));
    assert.equal(urls[0], `${base}/site/p0`);
    assert.equal(new Set(urls).size, urls.length, 'no page twice');
    assert.ok(!urls.some((u) => u.includes('private')), 'robots.txt disallow honoured');
    assert.equal(hits.get('/site/private') ?? 0, 0, 'disallowed page never fetched');
    assert.ok(urls.every((u) => u.startsWith(base)));
    assert.equal(res.json.creditUsage, 130);
    assert.equal(res.json.format, 'markdown');
    assert.equal(res.json.depth, 2);
    assert.equal(res.json.limit, 100);
    assert.match(res.json.results[0].content, /# Page 0/);
    assert.equal(res.json.results[0].status, 200);
    assert.equal(await credits(), before - 130);

    const limited = await crawl({ url: `${base}/site/p0`, limit: 4, format: 'text' });
    assert.equal(limited.json.pages, 4);
    assert.equal(limited.json.depth, 2);
    assert.match(limited.json.results[0].content, /^Page 0/);
    const raw = await crawl({ url: `${base}/site/p0`, limit: 1, depth: 0, format: 'raw' });
    assert.equal(raw.json.pages, 1);
    assert.match(raw.json.results[0].content, /^<!doctype html>/);
    assert.equal(await credits(), before - 130 - 40 - 10);
  });

  it('crawl: a start page disallowed by robots.txt is a 400 and costs nothing', async () => {
    const before = await credits();
    const res = await crawl({ url: `${base}/site/private` });
    assert.equal(res.status, 400);
    assert.match(res.json.error, /disallowed by the site's robots\.txt/);
    assert.equal(await credits(), before);
    assert.equal((await crawl({ url: `${base}/site/p0`, limit: 101 })).json.error, "'limit' must be an integer between 1 and 100.");
  });
});

