/**
 * The web lane's provider plugins through the real server against their fakes (issue 4):
 * crawler_a first with spider_a as fallback, screenshot providers, every endpoint example, and
 * provider endpoints called directly.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { webConfig } from './helpers/web-site.js';
import { startCrawlerAFake, type CrawlerAFake } from '../plugins/crawler_a/fake.js';
import { startSpiderAFake, type SpiderAFake } from '../plugins/spider_a/fake.js';
import { startFake as startShotAFake } from '../plugins/shot_a/fake.js';
import { startFake as startBrowserAFake, type BrowserAFake } from '../plugins/browser_a/fake.js';

describe('provider plugins through the real server', () => {
  let crawlerA: CrawlerAFake;
  let spiderA: SpiderAFake;
  let shotA: Awaited<ReturnType<typeof startShotAFake>>;
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
    crawlerA.failWith(500);
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
      crawlerA.rateLimit();
      const limited = await s.call('POST', '/api/v1/crawl', { key, body: { url: 'https://docs.example.org', limit: 2 } });
      assert.equal(limited.status, 200);
      assert.match(limited.json.results[0].content, /Spider page/);
      spiderA.failWith(500);
      const both = await s.call('POST', '/api/v1/crawl', { key, body: { url: 'https://unreachable.invalid/', limit: 2 } });
      assert.equal(both.status, 502, 'the own crawler is last: the host does not resolve');
      // Its first request is robots.txt, and a site whose robots.txt cannot be read is not crawled (RFC 9309).
      assert.match(both.json.error, /Failed to retrieve https:\/\/unreachable\.invalid\/robots\.txt: the host name does not resolve/);
    } finally {
      crawlerA.reset();
      spiderA.reset();
    }
  });

  it('screenshot chooses its provider with `provider`: each provider\'s image is stored here and linked by our own signed URL', async () => {
    for (const provider of ['shot_a', 'browser_a']) {
      const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'screenshot', provider, input: { url: 'https://example.org', viewport: { width: 320, height: 240 } } } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.meta.provider, provider);
      const png = Buffer.from(await (await fetch(res.json.data.url)).arrayBuffer());
      assert.equal(png.readUInt32BE(16), 320, provider);
    }
    const fc = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'screenshot', provider: 'crawler_a', input: { url: 'https://example.org' } } });
    assert.equal(fc.status, 200, fc.text);
    // The crawler's own link is copied into the file store (issue 28), like the other providers' images.
    assert.match(fc.json.data.url, new RegExp(`^${s.url}/files/`));
    assert.equal((await fetch(fc.json.data.url)).status, 200);
    shotA.rateLimit();
    const busy = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'screenshot', provider: 'shot_a', input: { url: 'https://example.org' } } });
    shotA.reset();
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
