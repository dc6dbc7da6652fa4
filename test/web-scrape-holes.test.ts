/**
 * Issue 27 cases the first tests left open, through the real server on loopback pages: both
 * screenshot formats in one call (either order, the same fields) and the full-page one alone, an office document
 * behind a URL, a BOM that outranks the charset its header and meta claim, the call's timeout
 * bounding a long `wait` action (witnessed by the page's own timer, not by this test's clock), `scroll` up and inside an element, and the cache key's parts
 * (headers without cookies, actions, the first format) and `storeInCache` without `maxAge`.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const docx = readFileSync(join(import.meta.dirname, 'fixtures', 'documents', 'writer.docx'));

let site: http.Server;
let base = '';
let count = 0;
/** Requests a page made once it had been open for `OUTLASTED_MS` (see the wait-action test). */
let outlasted = 0;
/** Half the long wait action below: a page still open then had the call outlive its timeout by far. */
const OUTLASTED_MS = 10_000;

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  const u = new URL(req.url!, 'http://x');
  const send = (body: string | Buffer, type = 'text/html; charset=utf-8', status = 200) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
  switch (u.pathname) {
    case '/long':
      // 3,000 px of page under an 800 px viewport: a full-page capture is much taller than the viewport's.
      return send('<!doctype html><html><head><title>Long</title></head><body style="margin:0"><div style="height:3000px;background:linear-gradient(red,blue)">Long page</div></body></html>');
    case '/bom':
      // A UTF-8 BOM, then UTF-8 bytes, under a header and a meta that both say windows-1252.
      return send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<!doctype html><html><head><meta charset="windows-1252"><title>Bom</title></head><body><p>Crème brûlée — ½ €</p></body></html>', 'utf8')]), 'text/html; charset=windows-1252');
    case '/letter':
      return send(docx, DOCX_TYPE);
    case '/scroll':
      return send(`<!doctype html><html><head><title>Scroll</title></head><body>
<p id="y">page top</p><p id="b">box top</p>
<div id="box" style="height:100px;overflow:auto"><div style="height:2000px">inside</div></div>
<div style="height:4000px"></div>
<script>addEventListener('scroll', () => { document.getElementById('y').textContent = 'page at ' + Math.round(scrollY); });
document.getElementById('box').addEventListener('scroll', (e) => { document.getElementById('b').textContent = 'box at ' + Math.round(e.target.scrollTop); });</script></body></html>`);
    case '/patient':
      // A page that, if it is still open OUTLASTED_MS after its load, says so.
      return send(`<!doctype html><html><head><title>Patient</title></head><body><p>Patient page</p><script>setTimeout(() => fetch('/outlasted'), ${OUTLASTED_MS});</script></body></html>`);
    case '/outlasted':
      outlasted++;
      return send('seen', 'text/plain');
    case '/count':
      count++;
      return send(`<!doctype html><title>Count</title><p>count ${count}</p><p>X-Test=${req.headers['x-test'] ?? 'none'}</p><p>Cookie=${req.headers.cookie ?? 'none'}</p>`);
    default:
      return send('not found', 'text/plain', 404);
  }
}

/** The PNG behind a temporary link, with its size from the IHDR chunk. */
async function png(url: string): Promise<{ bytes: Buffer; width: number; height: number }> {
  const res = await fetch(url);
  assert.equal(res.headers.get('content-type'), 'image/png');
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(bytes.readUInt32BE(0), 0x89504e47, 'a PNG');
  assert.equal(bytes.toString('latin1', 12, 16), 'IHDR');
  return { bytes, width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

before(async () => {
  ({ server: site, base } = await serveLoopback(handler));
});
after(() => {
  closeLoopback(site);
});

describe('scrape_page: the holes of issue 27', () => {
  let s: TestServer;
  let key = '';
  const run = (input: unknown, k = key) => s.call('POST', '/api/v2/run', { key: k, body: { type: 'capability', id: 'scrape_page', input } });
  const credits = async (k = key) => (await s.call('GET', '/api/v2/balance', { key: k })).json.data.credits as number;

  before(async () => {
    s = await startServer({
      serviceConfig: pluginsConfig(['web', 'doc_text']),
      env: { ALLOW_HOSTS: '127.0.0.1', WEB_PAGE_TIMEOUT_MS: '8000', BROWSER_MAX_PAGES: '1', OFFICE_POOL_SIZE: '1', DOCUMENTS_PREWARM: 'false' },
    });
    key = (await s.createKey({ credits: 10_000 })).key;
  });
  after(() => s?.close());

  it('screenshot@fullPage alone: one PNG of the whole page in content and screenshot', async () => {
    const res = await run({ url: `${base}/long`, formats: ['screenshot@fullPage'] });
    assert.equal(res.status, 200, res.text);
    const d = res.json.data;
    assert.equal(d.screenshot, d.content);
    assert.equal(d.screenshotFullPage, d.content);
    const shot = await png(d.screenshot);
    assert.equal(shot.width, 1280);
    assert.ok(shot.height >= 3000, `full page height ${shot.height}`);
  });

  for (const order of [
    ['screenshot', 'screenshot@fullPage'],
    ['screenshot@fullPage', 'screenshot'],
  ] as const) {
    it(`formats ${order.join(' then ')}: the viewport and the full page, each in a field of its own`, async () => {
      const before = await credits();
      const res = await run({ url: `${base}/long`, formats: [...order, 'markdown'] });
      assert.equal(res.status, 200, res.text);
      const d = res.json.data;
      assert.match(d.markdown, /Long page/);
      assert.notEqual(d.screenshotFullPage, d.screenshot, 'two links');
      assert.equal(d.actions, undefined, 'the viewport capture is no action of the caller');
      // Whatever the order: `screenshot` is the viewport, `screenshotFullPage` the whole page;
      // `content` holds the first format's.
      assert.equal(d.content, order[0] === 'screenshot' ? d.screenshot : d.screenshotFullPage);
      const viewport = await png(d.screenshot);
      const full = await png(d.screenshotFullPage);
      assert.deepEqual([viewport.width, viewport.height], [1280, 800]);
      assert.equal(full.width, 1280);
      assert.ok(full.height >= 3000, `full page height ${full.height}`);
      assert.ok(!viewport.bytes.equals(full.bytes));
      assert.equal(await credits(), before - 10);
    });
  }

  it('a DOCX behind a URL is read to markdown by doc-to-text; parsePDF false answers its file link', async () => {
    const before = await credits();
    const res = await run({ url: `${base}/letter`, formats: ['markdown'], renderJs: false });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data.markdown, 'Fixture writer page one\n\nFixture writer page two');
    assert.equal(res.json.data.content, res.json.data.markdown);
    assert.equal(res.json.data.metadata.contentType, DOCX_TYPE);
    const link = await run({ url: `${base}/letter`, parsePDF: false, renderJs: false });
    assert.equal(link.status, 200, link.text);
    assert.ok(Date.parse(link.json.data.metadata.expiresAt) > Date.now());
    const file = await fetch(link.json.data.content);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), DOCX_TYPE);
    assert.ok(Buffer.from(await file.arrayBuffer()).equals(docx), 'the document as served');
    assert.equal(await credits(), before - 20, 'each scrape 10 credits; the nested doc-to-text is not charged on top');
  });

  // The browser engine takes any content type with "xml" in it for a page (render.ts tests
  // /html|xml/), and OOXML's types all say "openxmlformats": its aborted download is then a 502.
  it('a DOCX behind a URL is read with renderJs on (the default) as with it off', async () => {
    const res = await run({ url: `${base}/letter`, formats: ['markdown'] });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data.markdown, 'Fixture writer page one\n\nFixture writer page two');
  });

  it('a UTF-8 BOM outranks the windows-1252 its header and meta claim, on both paths', async () => {
    for (const renderJs of [false, true]) {
      const res = await run({ url: `${base}/bom`, formats: ['markdown'], renderJs });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data.markdown, /Crème brûlée — ½ €/, `renderJs ${renderJs}`);
      assert.doesNotMatch(res.json.data.markdown, /\ufeff|Ã/, `renderJs ${renderJs}`);
    }
  });

  // The engine cuts a `wait` to what is left of the deadline and reports it done (actions.ts),
  // so the page is read after the timeout and charged: README and spec say a 502, free.
  it("a wait action longer than the call's timeout is the spec's 502, free", async () => {
    const before = await credits();
    const res = await run({ url: `${base}/patient`, timeout: 2000, actions: [{ type: 'wait', milliseconds: 2 * OUTLASTED_MS }] });
    assert.equal(res.status, 502, res.text);
    assert.equal(res.json.error, "Action 1 (wait) did not finish within the scrape's timeout.");
    // No clock here: the page's own timer, half the wait long, tells whether the call (and so
    // the page) outlived its 2-second timeout well into the wait.
    assert.equal(outlasted, 0, 'the call ended at its timeout, not after the wait');
    assert.equal(await credits(), before);
  });

  it('scroll up moves the page back; scroll with a selector moves that element only', async () => {
    const res = await run({
      url: `${base}/scroll`,
      formats: ['markdown'],
      actions: [
        { type: 'scroll', direction: 'down', amount: 1000 },
        { type: 'scroll', direction: 'up', amount: 400 },
        { type: 'executeJavascript', script: 'return scrollY' },
        { type: 'scroll', selector: '#box', amount: 300 },
        { type: 'executeJavascript', script: 'return [scrollY, document.getElementById("box").scrollTop]' },
      ],
    });
    assert.equal(res.status, 200, res.text);
    const d = res.json.data;
    assert.equal(d.actions[2].returnValue, 600);
    assert.deepEqual(d.actions[4].returnValue, [600, 300]);
    const missing = await run({ url: `${base}/scroll`, actions: [{ type: 'scroll', selector: '#nowhere' }] });
    assert.equal(missing.status, 400, missing.text);
    assert.equal(missing.json.error, "Action 1 (scroll) failed: no element matches '#nowhere'.");
  });

  describe('the cache key', () => {
    const state = (r: { json: { data: { metadata: { cacheState?: string } } } }) => r.json.data.metadata.cacheState;

    it('an entry made with headers only is not served without them, nor one made without them to a call with them', async () => {
      const url = `${base}/count?h=1`;
      const withHeader = await run({ url, renderJs: false, maxAge: 60_000, headers: { 'X-Test': 'private-h' } });
      assert.equal(state(withHeader), 'miss');
      assert.match(withHeader.json.data.content, /X-Test=private-h/);
      const plain = await run({ url, renderJs: false, maxAge: 60_000 });
      assert.equal(state(plain), 'miss', 'made without the header');
      assert.match(plain.json.data.content, /X-Test=none/);
      assert.equal(state(await run({ url, renderJs: false, maxAge: 60_000 })), 'hit');
      const again = await run({ url, renderJs: false, maxAge: 60_000, headers: { 'x-test': 'private-h' } });
      assert.equal(state(again), 'hit', "the same header, however it is spelt, is the same key's entry");
      assert.match(again.json.data.content, /X-Test=private-h/);
      const otherValue = await run({ url, renderJs: false, maxAge: 60_000, headers: { 'X-Test': 'private-i' } });
      assert.equal(state(otherValue), 'miss', 'another value is another entry');
      assert.match(otherValue.json.data.content, /X-Test=private-i/);
      // The other way round: an entry made plain first is not the answer for a call with a header.
      const url2 = `${base}/count?h=2`;
      assert.equal(state(await run({ url: url2, renderJs: false, maxAge: 60_000 })), 'miss');
      const later = await run({ url: url2, renderJs: false, maxAge: 60_000, headers: { 'X-Test': 'later' } });
      assert.equal(state(later), 'miss');
      assert.match(later.json.data.content, /X-Test=later/);
    });

    it('actions are part of the key', async () => {
      const url = `${base}/scroll?a=1`;
      const scrolled = [{ type: 'scroll', amount: 700 }, { type: 'executeJavascript', script: 'return scrollY' }];
      assert.equal(state(await run({ url, maxAge: 60_000, actions: scrolled })), 'miss');
      const plain = await run({ url, maxAge: 60_000 });
      assert.equal(state(plain), 'miss');
      assert.equal(plain.json.data.actions, undefined);
      const other = await run({ url, maxAge: 60_000, actions: [{ type: 'scroll', amount: 900 }, scrolled[1]] });
      assert.equal(state(other), 'miss');
      assert.equal(other.json.data.actions[1].returnValue, 900);
      const same = await run({ url, maxAge: 60_000, actions: scrolled });
      assert.equal(state(same), 'hit');
      assert.equal(same.json.data.actions[1].returnValue, 700);
    });

    it('the first format is part of the key: content is the format listed first', async () => {
      const url = `${base}/count?f=1`;
      const mdFirst = await run({ url, renderJs: false, maxAge: 60_000, formats: ['markdown', 'html'] });
      assert.equal(state(mdFirst), 'miss');
      assert.equal(mdFirst.json.data.content, mdFirst.json.data.markdown);
      const htmlFirst = await run({ url, renderJs: false, maxAge: 60_000, formats: ['html', 'markdown'] });
      assert.equal(htmlFirst.json.data.content, htmlFirst.json.data.html, 'content is the html asked first');
      assert.equal(state(htmlFirst), 'miss');
      assert.equal(state(await run({ url, renderJs: false, maxAge: 60_000, formats: ['html', 'markdown'] })), 'hit');
    });

    it('storeInCache true without maxAge stores the answer for a later maxAge call, and itself reads nothing', async () => {
      const url = `${base}/count?s=1`;
      const stored = await run({ url, renderJs: false, storeInCache: true });
      assert.equal(stored.status, 200, stored.text);
      assert.equal(state(stored), undefined, 'no maxAge: the cache is not read');
      const seen = /count (\d+)/.exec(stored.json.data.content)![1];
      const hit = await run({ url, renderJs: false, maxAge: 60_000 });
      assert.equal(state(hit), 'hit');
      assert.match(hit.json.data.content, new RegExp(`count ${seen}\\b`));
      const again = await run({ url, renderJs: false, storeInCache: true });
      assert.doesNotMatch(again.json.data.content, new RegExp(`count ${seen}\\b`), 'fetched afresh');
    });
  });
});
