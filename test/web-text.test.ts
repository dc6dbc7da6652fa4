/**
 * Plain text made by the web plugin (issue 19 item 1), through the real server against pages
 * served on loopback: crawl `format: "text"`, extract's `text` and scrape's text fallback for a
 * page too deep for markdown. Block elements separate text (a paragraph by a blank line), inline
 * elements do not, table cells are tab-separated, and there is never more than one blank line.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { serveLoopback } from './helpers/loopback.js';

const PAGES: Record<string, string> = {
  // The reproducer, as a fragment (no <html>, <head> or <body>) with a stray <title>.
  '/issue': '<title>Issue page</title><nav>Home</nav><h1>Hello</h1><p>World para.</p>',
  '/blocks': `<!doctype html><html><head><title>Blocks</title><style>p { color: red }</style></head><body>
    <header><a href="/">Site</a><a href="/about">About</a></header>
    <section><h2>Sec<em>tion</em> title</h2><div>First <b>bold</b> and <a href="/x">linked</a> words, <span>spanned</span>.</div><div><div>Nested div</div></div></section>


    <p>Line one<br>line two<br></p><p></p><p>   </p><p>After empties</p>
    <ul><li>one</li><li>two <code>code</code></li></ul><ol><li>first</li></ol>
    <table><tr><th>Name</th><th>Qty</th></tr><tr><td>Apples</td><td>3</td></tr><tr><td></td><td>empty first</td></tr></table>
    <pre>\n  indented\n    code</pre><script>document.write('script text')</script>
    <footer>Foot</footer></body></html>`,
  // Deeper than the 1,000 levels markdown is attempted for: the text stands in for markdown.
  '/deep': `<!doctype html><html><head><title>Deep</title></head><body>${'<div>'.repeat(1_500)}<h1>Deep head</h1><p>Deep <b>para</b>.</p>${'</div>'.repeat(1_500)}</body></html>`,
  '/article': `<!doctype html><html><head><title>Article</title></head><body><nav>Menu</nav><article><h1>Story</h1>${'<p>The story body has <a href="/a">enough</a> words for extraction to find it here.</p>'.repeat(10)}</article></body></html>`,
};

const BLOCKS_TEXT = [
  'SiteAbout',
  'Section title',
  'First bold and linked words, spanned.',
  'Nested div',
  '',
  'Line one',
  'line two',
  '',
  'After empties',
  '',
  'one',
  'two code',
  'first',
  'Name\tQty',
  'Apples\t3',
  '\tempty first',
  '  indented',
  '    code',
  'Foot',
].join('\n');

describe('plain text of the web plugin through the real server', () => {
  let site: http.Server;
  let base = '';
  let s: TestServer;
  let key: string;
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  const crawlText = async (path: string) => {
    const res = await s.call('POST', '/api/v1/crawl', { key, body: { url: `${base}${path}`, limit: 1, depth: 0, format: 'text' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.pages, 1);
    return res.json.results[0].content as string;
  };

  before(async () => {
    ({ server: site, base } = await serveLoopback((req, res) => {
      const page = PAGES[req.url!];
      res.writeHead(page ? 200 : 404, { 'content-type': page ? 'text/html; charset=utf-8' : 'text/plain' });
      res.end(page ?? 'not found');
    }));
    s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(async () => {
    await s?.close();
    site?.closeAllConnections();
    site?.close();
  });

  it("crawl format text: the issue's page has its blocks on lines of their own, charged 10", async () => {
    const before = await credits();
    assert.equal(await crawlText('/issue'), 'Home\nHello\n\nWorld para.');
    assert.equal(await credits(), before - 10);
  });

  it('crawl format text: headings, divs, sections, lists, cells and br separate text; inline elements do not; one blank line at most', async () => {
    const text = await crawlText('/blocks');
    assert.equal(text, BLOCKS_TEXT);
    assert.doesNotMatch(text, /\n\n\n/);
    assert.doesNotMatch(text, /script text|color: red|Blocks/);
  });

  it("web.extract's text and scrape's fallback for a page too deep for markdown are laid out the same way", async () => {
    const extract = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'web.extract', input: { url: `${base}/article`, renderJs: false } } });
    assert.equal(extract.status, 200, extract.text);
    const paragraphs = (extract.json.data.text as string).split('\n\n');
    assert.ok(paragraphs.length >= 10, extract.json.data.text);
    assert.ok(paragraphs.slice(-10).every((p) => p === 'The story body has enough words for extraction to find it here.'), extract.json.data.text);
    const deep = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/deep`, renderJs: false } });
    assert.equal(deep.status, 200, deep.text);
    assert.equal(deep.json.content, 'Deep head\n\nDeep para.');
    assert.equal(await crawlText('/deep'), 'Deep head\n\nDeep para.');
  });
});
