/**
 * `WEB_PROXY_URL` (issue 27) through the real server: with it set, the web lane's pages go through
 * the operator's proxy (with its credentials) on both the plain and the browser path, `proxy:
 * "none"` goes directly, and the SSRF guard still refuses a private address before any proxy
 * sees it. The proxy here is a loopback stand-in that answers for the sites it is asked for.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

let site: http.Server;
let proxy: http.Server;
let base = '';
const proxied: { url: string; auth?: string }[] = [];

before(async () => {
  site = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<title>Direct</title><p>Served directly</p>');
  });
  proxy = http.createServer((req, res) => {
    proxied.push({ url: req.url!, auth: req.headers['proxy-authorization'] });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<title>Proxied</title><p>Served by the proxy for ${req.url}</p>`);
  });
  for (const s of [site, proxy]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
after(() => {
  for (const s of [site, proxy]) {
    s.closeAllConnections();
    s.close();
  }
});

describe('WEB_PROXY_URL', () => {
  let s: TestServer;
  let key = '';
  const run = (input: unknown) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input } });
  before(async () => {
    const port = (proxy.address() as AddressInfo).port;
    s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ALLOW_HOSTS: '127.0.0.1', BROWSER_MAX_PAGES: '1', WEB_PROXY_URL: `http://op:s3cret@127.0.0.1:${port}` } });
    key = (await s.createKey({ credits: 1000 })).key;
  });
  after(() => s?.close());

  it('pages go through the proxy with its credentials on both paths; proxy "none" goes directly', async () => {
    const auth = `Basic ${Buffer.from('op:s3cret').toString('base64')}`;
    for (const renderJs of [false, true]) {
      proxied.length = 0;
      const res = await run({ url: `${base}/page`, renderJs });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data.content, new RegExp(`Served by the proxy for ${base}/page`), `renderJs ${renderJs}`);
      assert.deepEqual(proxied.find((p) => p.url === `${base}/page`)?.auth, auth);
      proxied.length = 0;
      const direct = await run({ url: `${base}/page`, renderJs, proxy: 'none' });
      assert.match(direct.json.data.content, /Served directly/, `renderJs ${renderJs}`);
      assert.deepEqual(proxied, []);
    }
    const shot = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'screenshot', input: { url: `${base}/page` } } });
    assert.equal(shot.status, 200, shot.text);
    assert.ok(proxied.some((p) => p.url === `${base}/page`), 'screenshots go through the proxy too');
  });

  it('the SSRF guard refuses a private address before the proxy is asked', async () => {
    proxied.length = 0;
    for (const renderJs of [false, true]) {
      const res = await run({ url: 'http://10.0.0.1/admin', renderJs });
      assert.equal(res.status, 400, res.text);
      assert.match(res.json.error, /^URL not allowed: 10\.0\.0\.1 resolves to a private address/);
    }
    assert.deepEqual(proxied, []);
  });
});
