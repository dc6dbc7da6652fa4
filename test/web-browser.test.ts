/**
 * The web lane's browser path through the real server (issue 18 findings 2, 4 and 6), against
 * pages served on loopback: full-page screenshots are bounded and say when they were clipped; a
 * host that does not resolve is the plain fetch's 502 on every browser operation, not a 500; a
 * page that navigates itself to an address the SSRF guard refuses is the guard's 400, free.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

let site: http.Server;
let base = '';
let port = 0;
let secretHits = 0;

const html = (body: string) => `<!doctype html><html><head><title>Page</title></head><body style="margin:0">${body}</body></html>`;
const PAGES: Record<string, () => string> = {
  '/tall': () => html('<div style="height:60000px;background:linear-gradient(red,blue)">A very tall page</div>'),
  '/short': () => html('<div style="height:1200px">A short page</div>'),
  '/refresh-private': () => html('<meta http-equiv="refresh" content="0;url=http://10.0.0.1/secret"><p>Moving on</p>'),
  '/refresh-localhost': () => html(`<meta http-equiv="refresh" content="0;url=http://localhost:${port}/secret"><p>Moving on</p>`),
  '/refresh-ok': () => html('<meta http-equiv="refresh" content="0; URL=/short"><p>Moving on</p>'),
  '/refresh-unresolvable': () => html('<meta http-equiv="refresh" content="0;url=http://nonexistent.invalid/"><p>Moving on</p>'),
  '/autoform': () => html('<form id="f" action="http://169.254.169.254/latest/meta-data/" method="post"><input name="a" value="1"></form><script>document.getElementById("f").submit()</script>'),
};

/** Width and height from a PNG's IHDR chunk. */
async function pngSize(url: string): Promise<{ width: number; height: number }> {
  const png = Buffer.from(await (await fetch(url)).arrayBuffer());
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

before(async () => {
  ({ server: site, base, port } = await serveLoopback((req, res) => {
    if (req.url === '/secret') {
      secretHits++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('internal secret');
    }
    const page = Object.hasOwn(PAGES, req.url!) ? PAGES[req.url!] : undefined;
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ? page() : 'not found');
  }));
});
after(() => {
  closeLoopback(site);
});

/** A server of the web plugin alone, a key with 1,000 credits, and helpers. */
async function webServer(env: Record<string, string>) {
  const s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { WEB_PAGE_TIMEOUT_MS: '5000', BROWSER_MAX_PAGES: '1', ...env } });
  const { key } = await s.createKey({ credits: 1000 });
  return {
    s,
    credits: async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number,
    scrape: (body: unknown) => s.call('POST', '/api/v1/scrape', { key, body }),
    run: (id: string, input: unknown) => s.call('POST', '/api/v2/run', { key, body: id.includes('.') ? { type: 'endpoint', id, input } : { type: 'capability', id, input } }),
  };
}

describe('browser path, network open (ALLOW_PRIVATE_NETWORK), WEB_SCREENSHOT_MAX_HEIGHT=3000', () => {
  let w: Awaited<ReturnType<typeof webServer>>;
  before(async () => {
    w = await webServer({ ALLOW_PRIVATE_NETWORK: 'true', WEB_SCREENSHOT_MAX_HEIGHT: '3000' });
  });
  after(() => w?.s.close());

  it('a full-page screenshot of a 60,000 px page is cut to the configured height and says so; 20 credits (issue 14)', async () => {
    const before = await w.credits();
    const res = await w.run('screenshot', { url: `${base}/tall`, fullPage: true, viewport: { width: 400, height: 300 } });
    assert.equal(res.status, 200, res.text);
    const d = res.json.data;
    assert.deepEqual({ width: d.width, height: d.height, clipped: d.clipped }, { width: 400, height: 3000, clipped: true });
    assert.ok(d.pageHeight >= 60_000, `pageHeight ${d.pageHeight}`);
    assert.deepEqual(await pngSize(d.url), { width: 400, height: 3000 });
    assert.equal(await w.credits(), before - 20);
    // Wider than 1,280 px the capture keeps the same area: 3000 × 1280 / 2560 = 1500 tall.
    const wide = await w.run('screenshot', { url: `${base}/tall`, fullPage: true, viewport: { width: 2560, height: 300 } });
    assert.equal(wide.status, 200, wide.text);
    assert.deepEqual({ width: wide.json.data.width, height: wide.json.data.height, clipped: wide.json.data.clipped }, { width: 2560, height: 1500, clipped: true });
  });

  it('a page within the limit is captured whole (clipped false); a viewport capture has no page size', async () => {
    const res = await w.run('screenshot', { url: `${base}/short`, fullPage: true, viewport: { width: 400, height: 300 } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual({ height: res.json.data.height, pageHeight: res.json.data.pageHeight, clipped: res.json.data.clipped }, { height: 1200, pageHeight: 1200, clipped: false });
    const view = await w.run('screenshot', { url: `${base}/tall`, viewport: { width: 400, height: 300 } });
    assert.equal(view.status, 200, view.text);
    assert.equal(view.json.data.height, 300);
    assert.equal(view.json.data.clipped, undefined);
    assert.equal(view.json.data.pageHeight, undefined);
  });

  it('a host that does not resolve is the 502 of the plain fetch on every browser operation, and free', async () => {
    const before = await w.credits();
    const plain = await w.scrape({ url: 'http://nonexistent.invalid/', renderJs: false });
    assert.equal(plain.status, 502, plain.text);
    assert.equal(plain.json.error, 'Failed to retrieve http://nonexistent.invalid/: the host name does not resolve.');
    for (const body of [{ url: 'http://nonexistent.invalid/', renderJs: true }, { url: 'http://nonexistent.invalid/' }, { url: 'http://nonexistent.invalid/', format: 'screenshot' }]) {
      const res = await w.scrape(body);
      assert.deepEqual({ status: res.status, body: res.json }, { status: 502, body: plain.json }, JSON.stringify(body));
    }
    for (const [id, input] of [['screenshot', { url: 'http://nonexistent.invalid/' }], ['web.extract', { url: 'http://nonexistent.invalid/', renderJs: true }]] as const) {
      const res = await w.run(id, input);
      assert.equal(res.status, 502, `${id}: ${res.text}`);
      assert.deepEqual([res.json.code, res.json.error], ['UPSTREAM_ERROR', plain.json.error], id);
    }
    // `javascript:1` reads as host `javascript`, port 1: both paths answer it alike.
    const js = await w.scrape({ url: 'javascript:1', renderJs: false });
    assert.equal(js.status, 502, js.text);
    const jsRendered = await w.scrape({ url: 'javascript:1', renderJs: true });
    assert.deepEqual({ status: jsRendered.status, body: jsRendered.json }, { status: js.status, body: js.json });
    assert.equal(await w.credits(), before);
  });
});

describe('browser path, guarded (only 127.0.0.1 allowed), default screenshot limit', () => {
  let w: Awaited<ReturnType<typeof webServer>>;
  before(async () => {
    w = await webServer({ ALLOW_HOSTS: '127.0.0.1' });
  });
  after(() => w?.s.close());

  it('a full-page screenshot is at most 16,384 px tall by default', async () => {
    const res = await w.run('screenshot', { url: `${base}/tall`, fullPage: true, viewport: { width: 100, height: 100 } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual({ width: res.json.data.width, height: res.json.data.height, clipped: res.json.data.clipped }, { width: 100, height: 16_384, clipped: true });
    assert.deepEqual(await pngSize(res.json.data.url), { width: 100, height: 16_384 });
  });

  it("a page that navigates itself to a refused address (meta refresh, auto-submitted form) is the guard's 400, free", async () => {
    const before = await w.credits();
    const hits = secretHits;
    for (const [path, reason] of [['/refresh-private', 'private'], ['/refresh-localhost', 'loopback'], ['/autoform', 'link-local']]) {
      for (const body of [{ url: `${base}${path}` }, { url: `${base}${path}`, format: 'screenshot' }]) {
        const res = await w.scrape(body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.match(res.json.error, new RegExp(`URL not allowed: .* resolves to a ${reason} address`), path);
      }
      const extract = await w.run('web.extract', { url: `${base}${path}` });
      assert.equal(extract.status, 400, `extract ${path}: ${extract.text}`);
      // With a wait the navigation has long settled on the browser's error page before the capture.
      const shot = await w.run('screenshot', { url: `${base}${path}`, wait: 1000 });
      assert.equal(shot.status, 400, `screenshot ${path}: ${shot.text}`);
    }
    assert.equal(secretHits, hits, 'the refused address was never reached');
    assert.equal(await w.credits(), before);
  });

  it('a meta refresh due at once is followed like a redirect: the answer is the page it leads to', async () => {
    const res = await w.scrape({ url: `${base}/refresh-ok` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.url, `${base}/short`);
    assert.match(res.json.content, /A short page/);
  });

  it('a page that navigates itself to an address that cannot be loaded is a 502, never the browser error page', async () => {
    const before = await w.credits();
    const res = await w.scrape({ url: `${base}/refresh-unresolvable` });
    assert.equal(res.status, 502, res.text);
    assert.doesNotMatch(res.text, /chrome-error/);
    const shot = await w.run('screenshot', { url: `${base}/refresh-unresolvable`, wait: 1000 });
    assert.equal(shot.status, 502, shot.text);
    assert.equal(shot.json.error, `Failed to retrieve ${base}/refresh-unresolvable: the page navigated to an address that could not be loaded.`);
    assert.equal(await w.credits(), before);
  });
});
