/**
 * The SSRF guard through the real server (issue 4): blocked ranges, a name that resolves to
 * loopback, redirects and page scripts reaching private addresses, on both fetch paths, and no
 * credits for refused URLs.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { hits, serveSite, webConfig } from './helpers/web-site.js';

describe('SSRF guard through the real server', () => {
  let site: Awaited<ReturnType<typeof serveSite>>;
  let port = 0;
  let s: TestServer;
  let key: string;
  const scrape = (body: unknown) => s.call('POST', '/api/v1/scrape', { key, body });

  before(async () => {
    site = await serveSite();
    port = site.port;
    // Only the literal 127.0.0.1 is opened: every other private address stays blocked, including
    // the name `localhost`, which resolves to loopback.
    s = await startServer({ serviceConfig: webConfig(), env: { ALLOW_HOSTS: '127.0.0.1', WEB_PAGE_TIMEOUT_MS: '3000' } });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(async () => {
    await s?.close();
    site?.close();
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

