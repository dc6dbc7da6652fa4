/**
 * The web lane's big work as jobs through the real server on both stores (issue 25 "Done when"):
 * a crawl job over a local site with a sitemap index, a gzipped sitemap, robots rules and path
 * rules returns exactly the expected pages, each charged once; map_site finds URLs only the
 * gzipped sitemap lists; a batch of 50 URLs with failures mixed in charges the pages scraped and
 * nothing for the failures; a crawl job can ask for more pages than a synchronous call.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { serveLocalSite, GZ_ONLY_PATHS, type LocalSite } from './helpers/local-site.js';
import { waitJob } from './helpers/jobs.js';

/** Every result item of a job, paged. */
async function allResults(s: TestServer, key: string, id: string): Promise<any[]> {
  const out: any[] = [];
  let cursor = '';
  for (;;) {
    const r = await s.call('GET', `/api/v2/jobs/${id}?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    assert.equal(r.status, 200, r.text);
    out.push(...r.json.data.results.items);
    if (!r.json.data.results.next) return out;
    cursor = r.json.data.results.next;
  }
}

const pathOf = (u: string) => new URL(u).pathname + new URL(u).search;

for (const { name, make } of BACKENDS) {
  describe(`web jobs on ${name}`, () => {
    let backend: Backend;
    let s: TestServer;
    let site: LocalSite;
    before(async () => {
      backend = await make();
      site = await serveLocalSite();
      s = await startServer({ env: { ...backend.env, ALLOW_PRIVATE_NETWORK: 'true' }, serviceConfig: pluginsConfig(['web']) });
    });
    after(async () => {
      await s?.close();
      await site?.close();
      await backend?.dispose();
    });
    const credits = async (key: string) => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
    const submit = (key: string, body: unknown) => s.call('POST', '/api/v2/jobs', { key, body });

    it('crawls the site as a job: sitemap index, gzipped sitemap, robots rules and path rules give exactly the expected pages', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      const r = await submit(key, { type: 'capability', id: 'crawl_site', input: { url: `${site.url}/`, limit: 500, depth: 5, excludePaths: ['^/about'] } });
      assert.equal(r.status, 202, r.text);
      const job = await waitJob(s, key, r.json.data.id);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      const items = await allResults(s, key, r.json.data.id);
      const paths = items.map((i) => pathOf(i.url)).sort();
      assert.deepEqual(paths, ['/', '/blog/one', '/blog/two', '/docs/a', '/docs/b', '/docs/c', ...GZ_ONLY_PATHS].sort());
      assert.equal(new Set(paths).size, paths.length, 'each page once');
      for (const i of items) assert.ok(typeof i.content === 'string' && i.content.length > 0);
      assert.equal(site.hits.get('/private/secret'), undefined, 'robots.txt Disallow respected');
      assert.equal(site.hits.get('/private/listed'), undefined);
      assert.equal(job.progress.done, paths.length);
      assert.equal(job.creditsCharged, 10 * paths.length);
      assert.equal(await credits(key), 1000 - 10 * paths.length);
    });

    it('takes a crawl limit above the synchronous 100 only as a job', async () => {
      const { key } = await s.createKey({ credits: 100 });
      const sync = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'crawl_site', input: { url: `${site.url}/`, limit: 101 } } });
      assert.equal(sync.status, 400);
      const job = await submit(key, { type: 'capability', id: 'crawl_site', input: { url: `${site.url}/`, limit: 10_000, includePaths: ['^/docs/'] } });
      assert.equal(job.status, 202, job.text);
      const done = await waitJob(s, key, job.json.data.id);
      assert.equal(done.status, 'completed');
      assert.equal(done.progress.done, 3);
      assert.equal(await credits(key), 100 - 30, 'charged for what it returned, not for its limit');
      assert.equal((await submit(key, { type: 'capability', id: 'crawl_site', input: { url: `${site.url}/`, limit: 10_001 } })).status, 400);
    });

    it('maps the site, finding pages only the gzipped sitemap lists, synchronously and as a job', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      const sync = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'map_site', input: { url: `${site.url}/` } } });
      assert.equal(sync.status, 200, sync.text);
      const links = (sync.json.data.links as { url: string }[]).map((l) => pathOf(l.url));
      for (const p of GZ_ONLY_PATHS) assert.ok(links.includes(p), `${p} found`);
      assert.ok(!links.some((p) => p.startsWith('/private/')), 'robots.txt Disallow respected');
      assert.equal(sync.json.data.count, links.length);
      const job = await submit(key, { type: 'capability', id: 'map_site', input: { url: `${site.url}/`, search: 'alpha' } });
      assert.equal(job.status, 202);
      const done = await waitJob(s, key, job.json.data.id);
      assert.equal(done.status, 'completed');
      const full = await s.call('GET', `/api/v2/jobs/${job.json.data.id}`, { key });
      assert.deepEqual(full.json.data.data.links.map((l: { url: string }) => pathOf(l.url)), ['/gz-only/alpha']);
    });

    it('batch-scrapes 50 URLs with failures mixed in: one item per URL, failures free', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      const urls = Array.from({ length: 50 }, (_, i) => (i % 5 === 4 ? `${site.url}/binary/${i}` : `${site.url}/page/${i}`));
      const r = await submit(key, { type: 'capability', id: 'batch_scrape', input: { urls, renderJs: false } });
      assert.equal(r.status, 202, r.text);
      const job = await waitJob(s, key, r.json.data.id);
      assert.equal(job.status, 'completed');
      assert.deepEqual(job.progress, { done: 40, failed: 10, total: 50 });
      // Results come in the order they finished; each URL once.
      const items = await allResults(s, key, r.json.data.id);
      assert.deepEqual(items.map((i) => i.url).sort(), [...urls].sort());
      for (const i of items) {
        if (i.url.includes('/binary/')) {
          assert.equal(i.status, 'failed');
          assert.ok(i.error.code && i.error.message);
        } else {
          assert.equal(i.status, 'completed');
          assert.ok(i.data);
        }
      }
      assert.equal(job.creditsCharged, 400);
      assert.equal(await credits(key), 600);
      // Synchronously a batch takes at most 20 URLs.
      assert.equal((await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'batch_scrape', input: { urls: urls.slice(0, 21), renderJs: false } } })).status, 400);
    });
  });
}
