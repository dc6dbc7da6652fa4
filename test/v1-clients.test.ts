/**
 * What the original service's automation clients rely on (issue 14): blank optional fields mean
 * "not given" on every v1 route, a blank required field keeps the spec's 400 text, and the
 * connection check answers the key's name for free.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveLoopback, type LoopbackServer } from '../core/testing/index.js';
import { startServer, type TestServer } from './helpers/server.js';

describe('v1 as automation platforms call it', () => {
  let s: TestServer;
  let page: LoopbackServer;
  let key: string;

  before(async () => {
    page = await serveLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Blank fields</title></head><body><h1>Hello</h1><p>World.</p></body></html>');
    });
    s = await startServer({ env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    ({ key } = await s.createKey({ credits: 100, name: 'zapier connection' }));
  });
  after(async () => {
    await s?.close();
    await page?.close();
  });

  it('"" and null optional fields take their defaults', async () => {
    const r = await s.call('POST', '/api/v1/scrape', { key, body: { url: page.url, format: '', cleaned: null, renderJs: false, requestSource: '' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.format, 'markdown');
    assert.equal(r.json.cleaned, false);
    assert.match(r.json.content, /# Hello/);
  });

  it('a required field sent as "" keeps the spec text', async () => {
    const r = await s.call('POST', '/api/v1/scrape', { key, body: { url: '', format: '' } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.json, { error: "'url' parameter is required and must be a non-empty string." });
  });

  it('GET /api/v1/key-connection names the key, costs nothing, and is 401 without one', async () => {
    const before = (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
    const r = await s.call('GET', '/api/v1/key-connection', { key });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { metadata: { name: 'zapier connection' } });
    assert.ok(r.headers['x-ratelimit-limit']);
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, before);
    const anon = await s.call('GET', '/api/v1/key-connection', {});
    assert.equal(anon.status, 401);
    const bad = await s.call('GET', '/api/v1/key-connection', { key: 'cia_nope' });
    assert.equal(bad.status, 401);
  });
});
