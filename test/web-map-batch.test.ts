/**
 * map_site, batch_scrape and the crawl options through the real server on both stores (issue
 * 25), against the local test site: what each option changes in the answer, the prices (a map
 * is 10 credits, a batch 10 per page scraped with failures free, a crawl 10 per page returned),
 * hostile input refused for free (a catastrophic path pattern, 21 URLs), a gzip bomb bounded,
 * and a crawler that cannot honour an option handing the call on.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { pluginsConfig } from './helpers/plugins.js';
import { GZ_ONLY_PATHS, serveLocalSite, type LocalSite } from './helpers/local-site.js';
import { startSpiderAFake, type SpiderAFake } from '../plugins/spider_a/fake.js';

const config = () => pluginsConfig(['web', 'spider_a'], { crawl_site: ['web'], map_site: ['web'], batch_scrape: ['web'] });
const pathOf = (u: string) => new URL(u).pathname + new URL(u).search;

for (const backend of BACKENDS) {
  describe(`map_site, batch_scrape and crawl options (${backend.name})`, () => {
    let site: LocalSite;
    let store: Backend;
    let s: TestServer;
    let key: string;
    const run = (id: string, input: unknown, extra: Record<string, unknown> = {}) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id, input, ...extra } });
    const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;

    before(async () => {
      site = await serveLocalSite({ bomb: true });
      store = await backend.make();
      s = await startServer({ serviceConfig: config(), env: { ...store.env, ALLOW_PRIVATE_NETWORK: 'true' } });
      key = (await s.createKey({ credits: 5000 })).key;
    });
    after(async () => {
      await s?.close();
      await store?.dispose();
      await site?.close();
    });

    it('map_site lists sitemap URLs (index, gzipped) and start-page links, honours robots.txt, bounds a gzip bomb; 10 credits', async () => {
      const before = await credits();
      const res = await run('map_site', { url: `${site.url}/` });
      assert.equal(res.status, 200, res.text);
      const paths = res.json.data.links.map((l: { url: string }) => pathOf(l.url));
      for (const p of GZ_ONLY_PATHS) assert.ok(paths.includes(p), `${p} (only in the gzipped sitemap) in ${paths.join(' ')}`);
      for (const p of ['/', '/docs/a', '/docs/b', '/blog/one', '/blog/two', '/about', '/about?ref=x']) assert.ok(paths.includes(p), `${p} in ${paths.join(' ')}`);
      assert.ok(!paths.some((p: string) => p.startsWith('/private')), 'robots.txt disallows /private');
      assert.ok(!paths.includes('/bomb-entry'), 'the gzip bomb is not inflated past the cap');
      assert.equal(res.json.data.count, paths.length);
      assert.equal(new Set(paths).size, paths.length, 'each URL once');
      assert.equal(res.json.data.links.find((l: { url: string }) => pathOf(l.url) === '/').title, 'Home');
      assert.equal(res.json.meta.credits, 10);
      assert.equal(await credits(), before - 10);
    });

    it('map_site filters: search, includePaths, excludePaths, sitemap skip/only, limit', async () => {
      const paths = async (input: Record<string, unknown>) => {
        const res = await run('map_site', { url: `${site.url}/`, ...input });
        assert.equal(res.status, 200, res.text);
        return res.json.data.links.map((l: { url: string }) => pathOf(l.url)).sort();
      };
      assert.deepEqual(await paths({ search: 'GZ-ONLY' }), GZ_ONLY_PATHS);
      assert.deepEqual(await paths({ includePaths: ['^/docs/'] }), ['/docs/a', '/docs/b']);
      assert.ok(!(await paths({ excludePaths: ['^/blog'] })).some((p: string) => p.startsWith('/blog')));
      const skip = await paths({ sitemap: 'skip' });
      assert.ok(!skip.includes('/gz-only/alpha') && skip.includes('/docs/a'), skip.join(' '));
      const only = await paths({ sitemap: 'only' });
      assert.ok(only.includes('/gz-only/alpha') && !only.includes('/about'), only.join(' '));
      assert.equal((await paths({ limit: 3 })).length, 3);
    });

    it('path patterns that are invalid or may backtrack catastrophically are a free 400', async () => {
      const before = await credits();
      for (const [id, input] of [
        ['map_site', { url: `${site.url}/`, includePaths: ['(a+)+$'] }],
        ['map_site', { url: `${site.url}/`, excludePaths: ['([a-z]|[0-9])*x'] }],
        ['crawl_site', { url: `${site.url}/`, includePaths: ['(unclosed'] }],
        ['crawl_site', { url: `${site.url}/`, excludePaths: ['x'.repeat(201)] }],
      ] as const) {
        const res = await run(id, input);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json.code, 'INVALID_INPUT');
      }
      assert.equal(await credits(), before);
    });

    it('batch_scrape: one result per URL in order, 10 credits per page scraped, failures free; 21 URLs is a free 400', async () => {
      const urls = Array.from({ length: 8 }, (_, i) => (i % 3 === 2 ? `${site.url}/binary/${i}` : `${site.url}/page/${i}`));
      const before = await credits();
      const res = await run('batch_scrape', { urls, renderJs: false });
      assert.equal(res.status, 200, res.text);
      const items = res.json.data.results;
      assert.deepEqual(items.map((r: { url: string }) => r.url), urls);
      assert.deepEqual(items.map((r: { status: string }) => r.status), urls.map((u) => (u.includes('/binary/') ? 'failed' : 'completed')));
      assert.match(items[0].data.content, /Page 0/);
      assert.equal(items[2].error.code, 'INVALID_INPUT');
      assert.equal(res.json.data.completed, 6);
      assert.equal(res.json.data.failed, 2);
      assert.equal(res.json.meta.credits, 60);
      assert.equal(await credits(), before - 60);

      const many = await run('batch_scrape', { urls: Array.from({ length: 21 }, (_, i) => `${site.url}/page/${i}`), renderJs: false });
      assert.equal(many.status, 400, many.text);
      assert.match(many.json.error, /'urls' must be a list of 1 to 20 URLs/);
      const badOption = await run('batch_scrape', { urls: [`${site.url}/page/1`], renderJs: false, actions: [{ type: 'click', selector: 'a' }] });
      assert.equal(badOption.status, 400, badOption.text);
      assert.equal(await credits(), before - 60);
    });

    it('crawl_site options each change the pages returned; charged per page returned; limit above 100 is a 400', async () => {
      const crawl = async (input: Record<string, unknown>) => {
        const before = await credits();
        const res = await run('crawl_site', { url: `${site.url}/`, limit: 50, ...input });
        assert.equal(res.status, 200, res.text);
        assert.equal(await credits(), before - 10 * res.json.data.pages);
        return res.json.data.results.map((r: { url: string }) => pathOf(r.url)).sort();
      };
      const all = await crawl({});
      assert.deepEqual(all, ['/', '/about', '/about?ref=x', '/about?ref=y', '/blog/one', '/blog/two', '/docs/a', '/docs/b', '/docs/c', '/gz-only/alpha', '/gz-only/beta']);
      assert.deepEqual(await crawl({ ignoreQueryParameters: true }), ['/', '/about', '/blog/one', '/blog/two', '/docs/a', '/docs/b', '/docs/c', '/gz-only/alpha', '/gz-only/beta']);
      assert.deepEqual(await crawl({ includePaths: ['^/docs/'] }), ['/docs/a', '/docs/b', '/docs/c']);
      assert.deepEqual(await crawl({ excludePaths: ['^/blog/', '^/about'] }), ['/', '/docs/a', '/docs/b', '/docs/c', '/gz-only/alpha', '/gz-only/beta']);
      assert.deepEqual(await crawl({ sitemap: 'skip' }), ['/', '/about', '/about?ref=x', '/about?ref=y', '/blog/one', '/blog/two', '/docs/a', '/docs/b', '/docs/c']);
      assert.deepEqual(await crawl({ sitemap: 'only' }), ['/', '/blog/one', '/blog/two', '/docs/a', '/docs/b', '/gz-only/alpha', '/gz-only/beta']);
      const big = await run('crawl_site', { url: `${site.url}/`, limit: 101 });
      assert.equal(big.status, 400, big.text);
      assert.match(big.json.error, /'limit' must be an integer between 1 and 100/);
    });
  });
}

describe('crawl options a provider cannot honour hand the call on', () => {
  let spider: SpiderAFake;
  let site: LocalSite;
  before(async () => {
    [spider, site] = await Promise.all([startSpiderAFake(), serveLocalSite()]);
  });
  after(async () => {
    await Promise.all([spider?.close(), site?.close()]);
  });

  it('spider_a serves a plain crawl, refuses includePaths so web serves it; the options it has reach its API', async () => {
    const s = await startServer({ serviceConfig: pluginsConfig(['web', 'spider_a'], { crawl_site: ['spider_a', 'web'] }), env: { ...spider.env, ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const { key } = await s.createKey({ credits: 1000 });
      const run = (input: unknown) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'crawl_site', input } });
      const plain = await run({ url: `${site.url}/`, limit: 2, allowSubdomains: true, sitemap: 'only' });
      assert.equal(plain.status, 200, plain.text);
      assert.equal(plain.json.meta.provider, 'spider_a');
      const sent = spider.requests.at(-1)!.body;
      assert.equal(sent.subdomains, true);
      assert.equal(sent.sitemap_only, true);

      const asked = spider.requests.length;
      const handed = await run({ url: `${site.url}/`, limit: 10, includePaths: ['^/docs/'] });
      assert.equal(handed.status, 200, handed.text);
      assert.equal(handed.json.meta.provider, 'web');
      assert.deepEqual(handed.json.meta.fallbacks, [{ provider: 'spider_a', code: 'INVALID_INPUT' }]);
      assert.equal(spider.requests.length, asked, 'spider_a was not called');
      assert.deepEqual(handed.json.data.results.map((r: { url: string }) => pathOf(r.url)).sort(), ['/docs/a', '/docs/b', '/docs/c']);
      assert.equal(handed.json.meta.credits, 30);
    } finally {
      await s.close();
    }
  });
});
