/**
 * crawl_site's provider chain through the real server (spec §4.10: crawler_a, then spider_a when
 * it fails or is not configured): a crawler_a job that fails or is lost upstream falls back to
 * spider_a, and without a crawler_a key spider_a serves the crawl directly. The fakes of both
 * contracts run on loopback.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startCrawlerAFake, type CrawlerAFake } from '../plugins/crawler_a/fake.js';
import { startSpiderAFake, type SpiderAFake } from '../plugins/spider_a/fake.js';

const crawlConfig = () => pluginsConfig(['web', 'crawler_a', 'spider_a'], { crawl_site: ['crawler_a', 'spider_a', 'web'] });

describe('crawl_site provider chain', () => {
  let crawlerA: CrawlerAFake;
  let spiderA: SpiderAFake;
  before(async () => {
    [crawlerA, spiderA] = await Promise.all([startCrawlerAFake(), startSpiderAFake()]);
  });
  after(async () => {
    await Promise.all([crawlerA?.close(), spiderA?.close()]);
  });

  it('a crawler_a job that fails, or is lost upstream (404 while polling), falls back to spider_a; charged once, per page', async () => {
    const s = await startServer({ serviceConfig: crawlConfig(), env: { ...crawlerA.env, ...spiderA.env } });
    try {
      const { key } = await s.createKey({ credits: 1000 });
      const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
      for (const mode of ['failed', 'lost'] as const) {
        crawlerA.jobMode = mode;
        const before = await credits();
        const polls = crawlerA.requests.filter((r) => r.method === 'GET').length;
        const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'crawl_site', input: { url: 'https://docs.example.org', limit: 2 } } });
        assert.equal(res.status, 200, `${mode}: ${res.text}`);
        assert.ok(crawlerA.requests.filter((r) => r.method === 'GET').length > polls, `${mode}: crawler_a's job was polled`);
        assert.equal(res.json.meta.provider, 'spider_a', mode);
        assert.deepEqual(res.json.meta.fallbacks, [{ provider: 'crawler_a', code: 'UPSTREAM_ERROR' }], mode);
        assert.equal(res.json.data.pages, 2);
        assert.match(res.json.data.results[0].content, /^# Spider page/);
        assert.equal(res.json.meta.credits, 20);
        assert.equal(await credits(), before - 20, `${mode}: only spider_a's pages are charged`);
      }
      // The v1 route answers the same way.
      const v1 = await s.call('POST', '/api/v1/crawl', { key, body: { url: 'https://docs.example.org', limit: 2 } });
      assert.equal(v1.status, 200, v1.text);
      assert.match(v1.json.results[0].content, /Spider page/);
    } finally {
      crawlerA.jobMode = undefined;
      await s.close();
    }
  });

  it('without a crawler_a key, spider_a serves crawl_site (no fallback recorded, crawler_a never called)', async () => {
    const s = await startServer({ serviceConfig: crawlConfig(), env: { ...spiderA.env } });
    try {
      const { key } = await s.createKey({ credits: 1000 });
      const before = crawlerA.requests.length;
      const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'crawl_site', input: { url: 'https://docs.example.org', limit: 2, format: 'text' } } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.meta.provider, 'spider_a');
      assert.deepEqual(res.json.meta.fallbacks ?? [], []);
      assert.equal(res.json.data.pages, 2);
      assert.match(res.json.data.results[0].content, /^Spider page/);
      assert.equal(res.json.meta.credits, 20);
      assert.equal(crawlerA.requests.length, before);
      const v1 = await s.call('POST', '/api/v1/crawl', { key, body: { url: 'https://docs.example.org', limit: 1 } });
      assert.equal(v1.status, 200, v1.text);
      assert.equal(v1.json.pages, 1);
      assert.equal(v1.json.creditUsage, 10);
    } finally {
      await s.close();
    }
  });
});
