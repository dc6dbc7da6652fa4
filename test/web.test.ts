/**
 * Web lane, black-box through the real server (issue 4): scrape, crawl, screenshot and extract
 * against a site served by this test on loopback, the SSRF guard (blocked ranges, a name that
 * resolves to loopback, redirects and page scripts reaching private addresses) and credits.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startCrawlerAFake, type CrawlerAFake } from '../plugins/crawler_a/fake.js';
import { startSpiderAFake, type SpiderAFake } from '../plugins/spider_a/fake.js';
import { startShotAFake, type ShotAFake } from '../plugins/shot_a/fake.js';
import { startBrowserAFake, type BrowserAFake } from '../plugins/browser_a/fake.js';

/** The plugins of this lane, with the deployment's provider order (crawler_a → spider_a → web). */
function webConfig() {
  return pluginsConfig(['web', 'crawler_a', 'spider_a', 'shot_a', 'browser_a'], { crawl_site: ['crawler_a', 'spider_a', 'web'], screenshot: ['web', 'crawler_a', 'shot_a', 'browser_a'] });
}

const SITE_PAGES = 30;
const hits = new Map<string, number>();
const hit = (p: string) => hits.set(p, (hits.get(p) ?? 0) + 1);
let pdfBytes: Uint8Array;

const STATIC = `<!doctype html><html lang="en-GB"><head><title>Static page</title>
<meta name="description" content="A static test page."><meta property="og:title" content="OG static">
<meta property="og:image" content="/img/card.png"><link rel="canonical" href="https://example.org/static">
</head><body><h1>Hello static</h1><p>Read <a href="/article">the article</a>.</p>
<table><tr><th>Name</th><th>Qty</th></tr><tr><td>Apples</td><td>3</td></tr></table>
<pre><code class="language-js">const x = 1;</code></pre></body></html>`;

const ARTICLE = `<!doctype html><html><head><title>Article</title></head><body>
<nav class="menu"><a href="/">Home</a> <a href="/about">About us menu</a></nav>
<div class="ad banner">BUY CHEAP WIDGETS NOW advertisement</div>
<article><h1>The real story</h1>${'<p>The article body explains the interesting subject in depth, with enough words for extraction to find it. </p>'.repeat(12)}</article>
<aside class="sidebar">Related: trending sidebar links</aside>
<footer>Copyright footer text 2026</footer></body></html>`;

/** The crawl site: a tree of 30 pages (3 children each), cycles back to the root, duplicates and off-site links. */
function sitePage(i: number): string {
  const kids = [1, 2, 3].map((k) => 3 * i + k).filter((k) => k < SITE_PAGES);
  const links = kids.map((k) => `<a href="/site/p${k}">child ${k}</a>`).join(' ');
  return `<!doctype html><html><head><title>Page ${i}</title></head><body><h1>Page ${i}</h1>${links}
  <a href="/site/p0">root again</a> <a href="/site/p${i}#top">self with fragment</a> <a href="/site/p${i}/?utm_source=x">self tracked</a>
  <a href="http://external.invalid/elsewhere">external</a> <a href="/site/private">private area</a>
  <a href="mailto:x@example.org">mail</a></body></html>`;
}

function siteHandler(port: () => number) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const u = new URL(req.url!, 'http://x');
    hit(u.pathname);
    const html = (body: string, status = 200) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    const site = /^\/site\/p(\d+)$/.exec(u.pathname);
    if (site) return Number(site[1]) < SITE_PAGES ? html(sitePage(Number(site[1]))) : html('<h1>Not here</h1>', 404);
    switch (u.pathname) {
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('User-agent: *\nDisallow: /site/private\n');
      case '/static':
        return html(STATIC);
      case '/article':
        return html(ARTICLE);
      case '/js':
        return html(`<!doctype html><title>JS page</title><div id="app"></div><script>
          document.addEventListener('DOMContentLoaded', () => { document.getElementById('app').innerHTML = '<p>Rendered by script</p>'; });</script>`);
      case '/redirect':
        res.writeHead(302, { location: u.searchParams.get('to') ?? '/static' });
        return res.end();
      case '/missing':
        return html('<title>Not found</title><h1>No such page</h1>', 404);
      case '/slow':
        setTimeout(() => html('<p>too late</p>'), 5000).unref();
        return;
      case '/huge':
        return html(`<p>${'x'.repeat(2_000_000)}</p>`);
      case '/doc.pdf':
        res.writeHead(200, { 'content-type': 'application/pdf' });
        return res.end(pdfBytes);
      case '/feed.xml':
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        return res.end('<?xml version="1.0"?><rss version="2.0"><channel><title>Feed</title></channel></rss>');
      case '/image.png':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(Buffer.from('89504e470d0a1a0a', 'hex'));
      case '/secret':
        res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
        return res.end('internal secret');
      case '/fetches':
        return html(`<!doctype html><title>Fetcher</title><p id="out">waiting</p><script>
          fetch('http://localhost:${port()}/secret').then(r => r.text()).then(t => { out.textContent = 'leaked ' + t; }, () => { out.textContent = 'blocked'; });</script>`);
      default:
        return html('<h1>Home</h1>');
    }
  };
}

describe('web lane through the real server', () => {
  let site: http.Server;
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
    let port = 0;
    site = http.createServer(siteHandler(() => port));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    port = (site.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    s = await startServer({
      serviceConfig: webConfig(),
      env: { ALLOW_PRIVATE_NETWORK: 'true', WEB_PAGE_TIMEOUT_MS: '1500', WEB_MAX_PAGE_BYTES: '1000000', BROWSER_MAX_PAGES: '1' },
    });
    ({ key } = await s.createKey({ credits: 5000 }));
  });
  after(async () => {
    await s?.close();
    site.closeAllConnections();
    site.close();
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

describe('crawl-delay from robots.txt', () => {
  it('spaces requests by the Crawl-delay', async () => {
    const times: number[] = [];
    const site = http.createServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('User-agent: *\nCrawl-delay: 1\n');
      }
      times.push(Date.now());
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<a href="/a">a</a><a href="/b">b</a>');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const s = await startServer({ serviceConfig: webConfig(), env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const { key } = await s.createKey({ credits: 100 });
      const res = await s.call('POST', '/api/v1/crawl', { key, body: { url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/`, limit: 3 } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.pages, 3);
      for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 950, `request ${i} came ${times[i]! - times[i - 1]!} ms after the previous one`);
    } finally {
      await s.close();
      site.closeAllConnections();
      site.close();
    }
  });
});

describe('robots.txt per origin', () => {
  it('checks a same-site link on another origin against that origin\'s robots.txt', async () => {
    const fetched: string[] = [];
    const robotsReads: number[] = [];
    const serve = (robots: string, page: (req: http.IncomingMessage) => string) =>
      http.createServer((req, res) => {
        if (req.url === '/robots.txt') {
          robotsReads.push(req.socket.localPort!);
          res.writeHead(200, { 'content-type': 'text/plain' });
          return res.end(robots);
        }
        fetched.push(`${req.socket.localPort}${req.url}`);
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(page(req));
      });
    // Same host, another port: the same site for the crawler, another origin for robots.txt.
    const other = serve('User-agent: *\nDisallow: /private\n', () => '<p>other origin</p>');
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const otherPort = (other.address() as AddressInfo).port;
    const start = serve('User-agent: *\nDisallow:\n', () => `<a href="http://127.0.0.1:${otherPort}/open">open</a><a href="http://127.0.0.1:${otherPort}/private">private</a>`);
    await new Promise<void>((r) => start.listen(0, '127.0.0.1', r));
    const s = await startServer({ serviceConfig: webConfig(), env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const { key } = await s.createKey({ credits: 100 });
      const res = await s.call('POST', '/api/v1/crawl', { key, body: { url: `http://127.0.0.1:${(start.address() as AddressInfo).port}/`, limit: 5 } });
      assert.equal(res.status, 200, res.text);
      const urls = res.json.results.map((r: { url: string }) => r.url);
      assert.ok(urls.includes(`http://127.0.0.1:${otherPort}/open`), urls.join(' '));
      assert.deepEqual(fetched.filter((f) => f.startsWith(`${otherPort}/`)), [`${otherPort}/open`]);
      assert.equal(res.json.pages, 2);
      assert.deepEqual(robotsReads.filter((p) => p === otherPort), [otherPort], 'read once per crawl');

      // A link the limit leaves unvisited costs no robots.txt request on its origin.
      robotsReads.length = 0;
      const one = await s.call('POST', '/api/v1/crawl', { key, body: { url: `http://127.0.0.1:${(start.address() as AddressInfo).port}/`, limit: 1 } });
      assert.equal(one.status, 200, one.text);
      assert.equal(one.json.pages, 1);
      assert.deepEqual(robotsReads.filter((p) => p === otherPort), []);
    } finally {
      await s.close();
      for (const server of [start, other]) {
        server.closeAllConnections();
        server.close();
      }
    }
  });
});

describe('crawl across many origins of one host', () => {
  it('follows at most 8 origins of the site, however many ports a page links to', async () => {
    const origins = new Set<number>();
    const servers: http.Server[] = [];
    const links: string[] = [];
    for (let i = 0; i < 12; i++) {
      const server = http.createServer((req, res) => {
        if (req.url !== '/robots.txt') origins.add(req.socket.localPort!);
        res.writeHead(req.url === '/robots.txt' ? 404 : 200, { 'content-type': 'text/html' });
        res.end(i === 0 ? links.join('') : '<p>page</p>');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      servers.push(server);
      links.push(`<a href="http://127.0.0.1:${(server.address() as AddressInfo).port}/p">port</a>`);
    }
    const s = await startServer({ serviceConfig: webConfig(), env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const { key } = await s.createKey({ credits: 1000 });
      const res = await s.call('POST', '/api/v1/crawl', { key, body: { url: `http://127.0.0.1:${(servers[0]!.address() as AddressInfo).port}/`, limit: 20 } });
      assert.equal(res.status, 200, res.text);
      assert.equal(origins.size, 8);
      // The start page, its own /p and one page on each of the 7 other origins.
      assert.equal(res.json.pages, 9);
    } finally {
      await s.close();
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    }
  });
});

describe('SSRF guard through the real server', () => {
  let site: http.Server;
  let port = 0;
  let s: TestServer;
  let key: string;
  const scrape = (body: unknown) => s.call('POST', '/api/v1/scrape', { key, body });

  before(async () => {
    site = http.createServer(siteHandler(() => port));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    port = (site.address() as AddressInfo).port;
    // Only the literal 127.0.0.1 is opened: every other private address stays blocked, including
    // the name `localhost`, which resolves to loopback.
    s = await startServer({ serviceConfig: webConfig(), env: { ALLOW_HOSTS: '127.0.0.1', WEB_PAGE_TIMEOUT_MS: '3000' } });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(async () => {
    await s?.close();
    site.closeAllConnections();
    site.close();
  });

  it('every blocked range is refused before any connection, with both fetch paths', async () => {
    const targets = [
      ['http://10.0.0.1/', 'private'],
      ['http://172.16.5.4/', 'private'],
      ['http://192.168.1.1/', 'private'],
      ['http://100.64.0.1/', 'carrier-grade NAT'],
      ['http://169.254.169.254/latest/meta-data/', 'link-local'],
      ['http://198.18.0.1/', 'benchmark'],
      ['http://224.0.0.1/', 'multicast'],
      ['http://240.0.0.1/', 'reserved'],
      ['http://0.0.0.0/', 'this-network'],
      ['http://127.0.0.2/', 'loopback'],
      ['http://[::1]/', 'loopback'],
      ['http://[::ffff:127.0.0.1]/', 'loopback'],
      ['http://[::ffff:169.254.169.254]/', 'link-local'],
      ['http://[fe80::1]/', 'link-local'],
      ['http://[fd00::1]/', 'unique local'],
      ['http://[ff02::1]/', 'multicast'],
    ];
    for (const [url, reason] of targets) {
      const res = await scrape({ url, renderJs: false });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.match(res.json.error, new RegExp(`URL not allowed: .* resolves to a ${reason} address`), url);
    }
    for (const [url] of [targets[4]!, targets[11]!]) {
      const res = await scrape({ url });
      assert.equal(res.status, 400, `${url} (browser): ${res.text}`);
    }
  });

  it('the operator allow-list opens 127.0.0.1, but a name resolving to loopback stays blocked', async () => {
    const open = await scrape({ url: `http://127.0.0.1:${port}/static`, renderJs: false });
    assert.equal(open.status, 200, open.text);
    const before = hits.get('/static') ?? 0;
    for (const renderJs of [false, true]) {
      const res = await scrape({ url: `http://localhost:${port}/static`, renderJs });
      assert.equal(res.status, 400, res.text);
      assert.match(res.json.error, /localhost resolves to a loopback address/);
    }
    assert.equal(hits.get('/static') ?? 0, before);
  });

  it('a redirect to a private address is refused (plain fetch and browser), crawl too', async () => {
    const before = hits.get('/secret') ?? 0;
    for (const to of [`http://localhost:${port}/secret`, 'http://10.0.0.1/secret']) {
      for (const renderJs of [false, true]) {
        const res = await scrape({ url: `http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(to)}`, renderJs });
        assert.equal(res.status, 400, `${to} renderJs=${renderJs}: ${res.text}`);
        assert.match(res.json.error, /URL not allowed/);
      }
    }
    const c = await s.call('POST', '/api/v1/crawl', { key, body: { url: `http://localhost:${port}/site/p0` } });
    assert.equal(c.status, 400);
    assert.equal(hits.get('/secret') ?? 0, before, 'the private target was never reached');
  });

  it("a page whose script fetches a private address gets nothing: the browser's request is blocked", async () => {
    const before = hits.get('/secret') ?? 0;
    const res = await scrape({ url: `http://127.0.0.1:${port}/fetches`, format: 'html' });
    assert.equal(res.status, 200, res.text);
    // The fetch fails (or, on a very busy machine, has not reported back yet): never any data.
    assert.match(res.json.content, /<p id="out">(blocked|waiting)<\/p>/);
    assert.doesNotMatch(res.json.content, /leaked internal secret/);
    assert.equal(hits.get('/secret') ?? 0, before);
  });

  it('credits are not charged for refused URLs', async () => {
    const b = (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
    await scrape({ url: 'http://169.254.169.254/', renderJs: false });
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, b);
  });
});

describe('provider plugins through the real server', () => {
  let crawlerA: CrawlerAFake;
  let spiderA: SpiderAFake;
  let shotA: ShotAFake;
  let browserA: BrowserAFake;
  let s: TestServer;
  let key: string;
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;

  before(async () => {
    [crawlerA, spiderA, shotA, browserA] = await Promise.all([startCrawlerAFake(), startSpiderAFake(), startShotAFake(), startBrowserAFake()]);
    s = await startServer({
      serviceConfig: webConfig(),
      env: {
        CRAWLER_A_BASE_URL: crawlerA.url,
        CRAWLER_A_API_KEY: crawlerA.apiKey,
        CRAWLER_A_POLL_INTERVAL_MS: '20',
        SPIDER_A_BASE_URL: spiderA.url,
        SPIDER_A_API_KEY: spiderA.apiKey,
        SHOT_A_BASE_URL: shotA.url,
        SHOT_A_API_KEY: shotA.apiKey,
        BROWSER_A_BASE_URL: browserA.url,
        BROWSER_A_API_KEY: browserA.apiKey,
      },
    });
    ({ key } = await s.createKey({ credits: 5000 }));
  });
  after(async () => {
    await s?.close();
    await Promise.all([crawlerA, spiderA, shotA, browserA].map((f) => f?.close()));
  });

  it('crawl_site is served by crawler_a first (async job), charged per page', async () => {
    const before = await credits();
    const res = await s.call('POST', '/api/v1/crawl', { key, body: { url: 'https://docs.example.org', limit: 3 } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.pages, 3);
    assert.deepEqual(res.json.results.map((r: { url: string }) => r.url), ['https://docs.example.org', 'https://docs.example.org/page-1', 'https://docs.example.org/page-2']);
    assert.match(res.json.results[0].content, /^# Page/);
    assert.equal(res.json.creditUsage, 30);
    assert.equal(await credits(), before - 30);
  });

  it('a failing crawler_a falls back to spider_a; pages without content are not charged', async () => {
    crawlerA.failWith = 500;
    try {
      const before = await credits();
      const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'crawl', input: { url: 'https://docs.example.org', format: 'text' } } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.meta.provider, 'spider_a');
      assert.deepEqual(res.json.meta.fallbacks, [{ provider: 'crawler_a', code: 'UPSTREAM_ERROR' }]);
      // The fake's fifth page is a target 404 without content: 4 pages returned, 40 credits.
      assert.equal(res.json.data.pages, 4);
      assert.match(res.json.data.results[0].content, /^Spider page/);
      assert.equal(res.json.data.creditUsage, 40);
      assert.equal(res.json.meta.credits, 40);
      assert.equal(await credits(), before - 40);
      crawlerA.failWith = 429;
      const limited = await s.call('POST', '/api/v1/crawl', { key, body: { url: 'https://docs.example.org', limit: 2 } });
      assert.equal(limited.status, 200);
      assert.match(limited.json.results[0].content, /Spider page/);
      spiderA.failWith = 500;
      const both = await s.call('POST', '/api/v1/crawl', { key, body: { url: 'https://unreachable.invalid/', limit: 2 } });
      assert.equal(both.status, 502, 'the own crawler is last: the host does not resolve');
      // Its first request is robots.txt, and a site whose robots.txt cannot be read is not crawled (RFC 9309).
      assert.match(both.json.error, /Failed to retrieve https:\/\/unreachable\.invalid\/robots\.txt: the host name does not resolve/);
    } finally {
      crawlerA.failWith = undefined;
      spiderA.failWith = undefined;
    }
  });

  it('screenshot chooses its provider with `provider`: shot_a and browser_a store the image, crawler_a links it', async () => {
    for (const provider of ['shot_a', 'browser_a']) {
      const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'screenshot', provider, input: { url: 'https://example.org', viewport: { width: 320, height: 240 } } } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.meta.provider, provider);
      const png = Buffer.from(await (await fetch(res.json.data.url)).arrayBuffer());
      assert.equal(png.readUInt32BE(16), 320, provider);
    }
    const fc = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'screenshot', provider: 'crawler_a', input: { url: 'https://example.org' } } });
    assert.equal(fc.status, 200, fc.text);
    assert.match(fc.json.data.url, /^http:\/\/127\.0\.0\.1:\d+\/screenshots\//);
    shotA.failWith = 'concurrency_limit_reached';
    const busy = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'screenshot', provider: 'shot_a', input: { url: 'https://example.org' } } });
    shotA.failWith = undefined;
    assert.equal(busy.status, 503);
    assert.equal(busy.json.error, 'Rate limit exceeded. Please try again later.');
  });

  it('every endpoint example of the four providers runs against its fake', async () => {
    const plugins = await Promise.all(['crawler_a', 'spider_a', 'shot_a', 'browser_a'].map(async (id) => (await import(`../plugins/${id}/index.js`)).default));
    let ran = 0;
    for (const plugin of plugins) {
      for (const ep of plugin.endpoints ?? []) {
        assert.ok(ep.examples?.length, `${plugin.id}.${ep.operation} has an example`);
        for (const ex of ep.examples) {
          const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: `${plugin.id}.${ep.operation}`, input: ex.input } });
          assert.equal(res.status, 200, `${plugin.id}.${ep.operation} "${ex.title}": ${res.text}`);
          ran++;
        }
      }
    }
    assert.equal(ran, 11);
  });

  it('provider endpoints are reachable directly: crawler_a.map, spider_a.links, browser_a.scrape', async () => {
    const map = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'crawler_a.map', input: { url: 'https://example.org' } } });
    assert.equal(map.status, 200, map.text);
    assert.equal(map.json.data.links.length, 3);
    const links = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'spider_a.links', input: { url: 'https://example.org' } } });
    assert.deepEqual(links.json.data.pages[0].links, ['https://example.org/x', 'https://example.org/y']);
    const sc = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'browser_a.scrape', input: { url: 'https://example.org', elements: [{ selector: 'h1' }] } } });
    assert.equal(sc.json.data.data[0].results[0].text, 'Fake https://example.org');
  });
});
