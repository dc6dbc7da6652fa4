/**
 * Audit of issue 27, findings 5 and 9, through the real server: selectors the service cannot read
 * are a free 400 before any page is fetched (includeTags, excludeTags, waitForSelector); v1
 * `formats: []` is no `formats`; a header value over the limit is told so; a country the service
 * has no settings for is a 400 unless languages are given; and the plain fetch keeps the text a
 * page puts after `</html>`, as the browser does.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

let site: http.Server;
let base = '';
let hits = 0;

before(async () => {
  ({ server: site, base } = await serveLoopback((req, res) => {
    hits++;
    const u = new URL(req.url!, 'http://x');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    if (u.pathname === '/trailing') return void res.end('<!doctype html><html><head><title>Trailing</title></head><body><p>Inside the body</p></body></html>\n<p>After the end tag</p>');
    if (u.pathname === '/env') return void res.end('<title>Env</title><p id="env"></p><script>document.getElementById("env").textContent = "lang=" + navigator.language</script>');
    res.end('<title>Plain</title><p class="a">Paragraph A</p><p class="b">Paragraph B</p>');
  }));
});
after(() => {
  closeLoopback(site);
});

describe('scrape_page input checks from the issue 27 audit', () => {
  let s: TestServer;
  let key = '';
  const run = (input: unknown) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input } });
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;

  before(async () => {
    s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ALLOW_HOSTS: '127.0.0.1', BROWSER_MAX_PAGES: '1' } });
    key = (await s.createKey({ credits: 1000 })).key;
  });
  after(() => s?.close());

  it('a selector in includeTags or excludeTags that cannot be read is a free 400 before the page is fetched', async () => {
    const before = await credits();
    const fetched = hits;
    for (const renderJs of [false, true]) {
      const inc = await run({ url: `${base}/plain`, renderJs, includeTags: ['p', 'p[[['] });
      assert.equal(inc.status, 400, inc.text);
      assert.match(inc.json.error, /^'includeTags' entry 'p\[\[\[' is not a valid CSS selector/);
      const exc = await run({ url: `${base}/plain`, renderJs, excludeTags: ['p.b,'] });
      assert.equal(exc.status, 400, exc.text);
      assert.match(exc.json.error, /^'excludeTags' entry 'p\.b,' is not a valid CSS selector/);
    }
    assert.equal(hits, fetched, 'no page was fetched');
    assert.equal(await credits(), before);
    // Valid ones still apply.
    const ok = await run({ url: `${base}/plain`, renderJs: false, includeTags: ['p.a'], excludeTags: ['p.b'] });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.data.content, 'Paragraph A');
  });

  it('a waitForSelector the browser cannot read is a free 400 at once, not a wait until the timeout', async () => {
    const before = await credits();
    const fetched = hits;
    const res = await run({ url: `${base}/plain`, waitForSelector: 'p[[[', timeout: 60_000 });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.error, "'waitForSelector' is not a valid CSS selector: 'p[[['.");
    assert.equal(hits, fetched, 'the page was not loaded');
    assert.equal(await credits(), before);
  });

  it('v1 formats: [] is the same as no formats (the answer keeps its v1 shape)', async () => {
    const res = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/plain`, formats: [], renderJs: false } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.format, 'markdown');
    assert.match(res.json.content, /Paragraph A/);
    assert.equal(res.json.markdown, undefined, 'no formats: the legacy answer, without per-format fields');
  });

  it('a header value over 8192 characters is refused naming the limit', async () => {
    const res = await run({ url: `${base}/plain`, renderJs: false, headers: { 'X-Big': 'x'.repeat(8193) } });
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.error, /at most 8192 characters/);
  });

  it('a country without settings is a 400 naming it, unless languages are given', async () => {
    const before = await credits();
    const zz = await run({ url: `${base}/env`, location: { country: 'ZZ' } });
    assert.equal(zz.status, 400, zz.text);
    assert.match(zz.json.error, /^'location\.country' 'ZZ' is not a country this service has settings for; give 'location\.languages' for it, or one of: AE, AR, AT,/);
    assert.equal(await credits(), before);
    const withLanguages = await run({ url: `${base}/env`, location: { country: 'ZZ', languages: ['fr-FR'] } });
    assert.equal(withLanguages.status, 200, withLanguages.text);
    assert.match(withLanguages.json.data.content, /lang=fr-FR/);
    const known = await run({ url: `${base}/env`, location: { country: 'de' } });
    assert.equal(known.status, 200, known.text);
    assert.match(known.json.data.content, /lang=de-DE/);
  });

  it('text after </html> is kept by the plain fetch, as by the browser', async () => {
    for (const renderJs of [true, false]) {
      const res = await run({ url: `${base}/trailing`, renderJs });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data.content, /Inside the body/);
      assert.match(res.json.data.content, /After the end tag/, `renderJs ${renderJs}`);
    }
  });
});
