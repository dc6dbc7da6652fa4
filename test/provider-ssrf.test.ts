/**
 * URLs bound for a third-party provider pass the SSRF guard first (issue 24 finding 11): with
 * crawler_a configured (its loopback fake), a crawl, scrape, map or screenshot of a loopback or
 * private address is refused with the guard's 400 before the provider hears of it, on every lane
 * and for every spelling of the address; the operator's ALLOW_HOSTS / ALLOW_PRIVATE_NETWORK still
 * open it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startCrawlerAFake, type CrawlerAFake } from '../plugins/crawler_a/fake.js';

let fake: CrawlerAFake;
before(async () => {
  fake = await startCrawlerAFake();
});
after(() => fake?.close());

const config = () => pluginsConfig(['web', 'crawler_a'], { crawl_site: ['crawler_a', 'web'], screenshot: ['crawler_a', 'web'] });

describe('provider-bound URLs, default settings', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer({ serviceConfig: config(), env: { ...fake.env } });
    ({ key } = await s.createKey({ credits: 10_000 }));
  });
  after(() => s?.close());

  for (const url of ['http://127.0.0.1/admin', 'http://localhost:8080/', 'http://[::1]/x', 'http://10.1.2.3/', 'http://169.254.169.254/latest/meta-data/', 'http://0x7f.1/', '127.0.0.1/admin', 'http://192.168.0.1:3000/']) {
    it(`crawl of ${url} is a free 400 and crawler_a is never called`, async () => {
      const before = fake.requests.length;
      const res = await s.call('POST', '/api/v1/crawl', { key, body: { url, limit: 2 } });
      assert.equal(res.status, 400, res.text);
      assert.match(res.json.error, /^URL not allowed: .* resolves to a .* address, which cannot be fetched\.$/);
      assert.equal(fake.requests.length, before, 'nothing reached the provider');
    });
  }

  it('scrape and screenshot through crawler_a, and its endpoints on v2, are refused the same way', async () => {
    const before = fake.requests.length;
    const scrape = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'crawler_a.scrape', input: { url: 'http://127.0.0.1:9/' } } });
    assert.equal(scrape.status, 400, scrape.text);
    const shot = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'screenshot', provider: 'crawler_a', input: { url: 'http://localhost/' } } });
    assert.equal(shot.status, 400, shot.text);
    const map = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'crawler_a.map', input: { url: 'http://127.0.0.1/' } } });
    assert.equal(map.status, 400, map.text);
    assert.equal(fake.requests.length, before);
    const b = await s.call('GET', '/api/v2/balance', { key });
    assert.equal(b.json.data.credits, 10_000, 'refusals are free');
  });

  it('a public URL still reaches the provider', async () => {
    const before = fake.requests.length;
    const res = await s.call('POST', '/api/v1/crawl', { key, body: { url: 'https://docs.example.com/start', limit: 2 } });
    assert.equal(res.status, 200, res.text);
    assert.ok(fake.requests.length > before);
  });
});

describe('provider-bound URLs, operator allowances', () => {
  it('ALLOW_HOSTS names a host that may be handed over; ALLOW_PRIVATE_NETWORK opens all', async () => {
    for (const env of [{ ALLOW_HOSTS: '127.0.0.1' }, { ALLOW_PRIVATE_NETWORK: 'true' }]) {
      const s = await startServer({ serviceConfig: config(), env: { ...fake.env, ...env } });
      try {
        const { key } = await s.createKey({ credits: 1000 });
        const before = fake.requests.length;
        const res = await s.call('POST', '/api/v1/crawl', { key, body: { url: 'http://127.0.0.1/internal', limit: 2 } });
        assert.equal(res.status, 200, res.text);
        assert.ok(fake.requests.length > before);
      } finally {
        await s.close();
      }
    }
  });
});
