/**
 * The web plugin's job steps (issue 25) run directly with a run context against the local test
 * site, driven the way the job engine drives them: seed once, then one item at a time, one item
 * per key, stopping at the steps' limit. Also the scope rules (subdomains, query, path patterns)
 * that loopback cannot serve, and the sitemap reader's bounds.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { InputError, type JobSteps } from '../core/sdk.js';
import { runContext } from '../core/testing/index.js';
import { createHttpEngineWith } from '../core/engines/http/index.js';
import { createComputeEngine } from '../core/engines/compute/index.js';
import { serveLocalSite, type LocalSite } from './helpers/local-site.js';
import { crawlSteps } from '../plugins/web/crawl-steps.js';
import { batchSteps } from '../plugins/web/batch.js';
import { registerPageWork, type WebState } from '../plugins/web/work.js';
import { scopeLinks } from '../plugins/web/site-scope.js';
import { sitemapLocs, sitemapText } from '../plugins/web/sitemap-parse.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const http = createHttpEngineWith({ env: { ALLOW_PRIVATE_NETWORK: 'true' } });
const compute = createComputeEngine({ dataDir: '/tmp', publicBaseUrl: () => '', env: { COMPUTE_WORKERS: '1' }, log: silent });
const engines = { http, compute };

/** Runs steps the way the job engine does; the results in order, the units summed, the failures counted. */
async function drive<I>(steps: JobSteps<I, WebState>, input: I, call?: (capability: string, input: unknown) => Promise<unknown>) {
  const state = registerPageWork(engines);
  const { ctx } = runContext<WebState>({ provider: 'web', state, engines, config: {}, call });
  const queue = await steps.seed(input, ctx);
  const keys = new Set(queue.map((i) => i.key));
  assert.equal(keys.size, queue.length, 'seed keys are distinct');
  const results: unknown[] = [];
  let units = 0;
  let failed = 0;
  while (queue.length && results.length < steps.limit(input)) {
    const item = queue.shift()!;
    const out = await steps.run(input, item, ctx);
    if (out.result !== undefined) results.push(out.result);
    units += out.units?.pages ?? 0;
    if (out.failed) failed++;
    for (const m of out.more ?? []) {
      if (keys.has(m.key)) continue;
      keys.add(m.key);
      queue.push(m);
    }
  }
  return { results, units, failed };
}

describe('web job steps on a local site', () => {
  let site: LocalSite;
  before(async () => {
    site = await serveLocalSite();
  });
  after(async () => {
    await site.close();
  });

  const paths = (results: unknown[]) => (results as { url: string }[]).map((r) => new URL(r.url).pathname + new URL(r.url).search).sort();

  it('crawl: start page, sitemap index, gzipped sitemap and links; robots.txt disallow respected; each page once and charged once', async () => {
    const { results, units } = await drive(crawlSteps, { url: `${site.url}/`, limit: 100 });
    assert.deepEqual(paths(results), ['/', '/about', '/about?ref=x', '/about?ref=y', '/blog/one', '/blog/two', '/docs/a', '/docs/b', '/docs/c', '/gz-only/alpha', '/gz-only/beta']);
    assert.equal(units, results.length);
    assert.equal(site.hits.get('/private/secret'), undefined);
    assert.equal(site.hits.get('/private/listed'), undefined);
  });

  it('crawl: ignoreQueryParameters, includePaths, excludePaths and the sitemap modes each change the pages', async () => {
    const base = { url: `${site.url}/`, limit: 100 };
    assert.deepEqual(paths((await drive(crawlSteps, { ...base, ignoreQueryParameters: true })).results), ['/', '/about', '/blog/one', '/blog/two', '/docs/a', '/docs/b', '/docs/c', '/gz-only/alpha', '/gz-only/beta']);
    // The start page is read for its links but, outside the include rules, neither returned nor charged.
    const docs = await drive(crawlSteps, { ...base, includePaths: ['^/docs/'] });
    assert.deepEqual(paths(docs.results), ['/docs/a', '/docs/b', '/docs/c']);
    assert.equal(docs.units, 3);
    assert.deepEqual(paths((await drive(crawlSteps, { ...base, excludePaths: ['^/blog/', '^/about'] })).results), ['/', '/docs/a', '/docs/b', '/docs/c', '/gz-only/alpha', '/gz-only/beta']);
    assert.deepEqual(paths((await drive(crawlSteps, { ...base, sitemap: 'skip' as const })).results), ['/', '/about', '/about?ref=x', '/about?ref=y', '/blog/one', '/blog/two', '/docs/a', '/docs/b', '/docs/c']);
    assert.deepEqual(paths((await drive(crawlSteps, { ...base, sitemap: 'only' as const })).results), ['/', '/blog/one', '/blog/two', '/docs/a', '/docs/b', '/gz-only/alpha', '/gz-only/beta']);
  });

  it('crawl: the limit and depth bound the job; a disallowed start URL fails the seed with a 400', async () => {
    const two = await drive(crawlSteps, { url: `${site.url}/`, limit: 2 });
    assert.equal(two.results.length, 2);
    assert.deepEqual(paths((await drive(crawlSteps, { url: `${site.url}/`, limit: 100, depth: 0, sitemap: 'skip' as const })).results), ['/']);
    await assert.rejects(drive(crawlSteps, { url: `${site.url}/private/secret` }), (e) => e instanceof InputError && /disallowed by the site's robots.txt/.test(e.message));
  });

  it('batch: one item per URL in order, failures free and marked failed', async () => {
    const urls = Array.from({ length: 12 }, (_, i) => (i % 4 === 3 ? `${site.url}/binary/${i}` : `${site.url}/page/${i}`));
    const calls: unknown[] = [];
    const { results, units, failed } = await drive(batchSteps, { urls, formats: ['markdown'] }, async (capability, input) => {
      calls.push(input);
      assert.equal(capability, 'scrape_page');
      const url = (input as { url: string }).url;
      if (url.includes('/binary/')) throw new InputError('Unsupported content type application/octet-stream.');
      return { title: url, url, content: '# page', metadata: { statusCode: 200, contentType: 'text/html' }, format: 'markdown', cleaned: false };
    });
    assert.equal(results.length, 12);
    assert.deepEqual((results as { url: string }[]).map((r) => r.url), urls);
    assert.equal(failed, 3);
    assert.equal(units, 9);
    const bad = results[3] as { status: string; error: { code: string; message: string } };
    assert.equal(bad.status, 'failed');
    assert.equal(bad.error.code, 'INVALID_INPUT');
    assert.deepEqual((calls[0] as { formats: string[] }).formats, ['markdown'], 'the scrape options reach every call');
  });
});

describe('crawl job steps keep Crawl-delay across items', () => {
  it('items of one origin run at once still start a Crawl-delay apart', async () => {
    const slow = await serveLocalSite({ crawlDelay: 1 });
    try {
      const state = registerPageWork(engines);
      const { ctx } = runContext<WebState>({ provider: 'web', state, engines, config: {} });
      const input = { url: `${slow.url}/`, sitemap: 'skip' as const };
      await Promise.all(['/docs/a', '/docs/b', '/docs/c'].map((p) => crawlSteps.run(input, { key: `${slow.url}${p}`, data: { depth: 1 } }, ctx)));
      const times = slow.times.filter((_, i) => slow.log[i]!.startsWith('/docs/'));
      assert.equal(times.length, 3);
      for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 800, `request ${i} came ${times[i]! - times[i - 1]!} ms after the previous one`);
      assert.equal(slow.hits.get('/robots.txt'), 1, 'robots.txt read once for the three items');
    } finally {
      await slow.close();
    }
  });
});

after(async () => {
  await http.close();
  await compute.close();
});

describe('site scope', () => {
  const scope = { site: 'example.org', subdomains: false, ignoreQuery: false, include: [], exclude: [] };
  const links = ['https://example.org/a', 'https://www.example.org/b', 'https://docs.example.org/c', 'https://evil-example.org/d', 'https://example.org/a?x=1', 'https://example.org/a#frag', 'https://example.org/img.png'];

  it('keeps the site (with www.), subdomains only when allowed, never a look-alike host', () => {
    assert.deepEqual(scopeLinks(links, scope), ['https://example.org/a', 'https://www.example.org/b', 'https://example.org/a?x=1']);
    assert.deepEqual(scopeLinks(links, { ...scope, subdomains: true }), ['https://example.org/a', 'https://www.example.org/b', 'https://docs.example.org/c', 'https://example.org/a?x=1']);
    assert.deepEqual(scopeLinks(links, { ...scope, ignoreQuery: true }), ['https://example.org/a', 'https://www.example.org/b']);
  });

  it('matches path patterns on the path only', () => {
    assert.deepEqual(scopeLinks(['https://example.org/docs/x?q=/blog/', 'https://example.org/blog/y'], { ...scope, include: ['^/blog/'] }), ['https://example.org/blog/y']);
    assert.deepEqual(scopeLinks(['https://example.org/docs/x', 'https://example.org/blog/y'], { ...scope, exclude: ['^/docs'] }), ['https://example.org/blog/y']);
  });
});

describe('sitemap reading', () => {
  it('reads entries of a urlset and an index, decodes entities and CDATA, and caps inflation', () => {
    const set = sitemapLocs('<?xml version="1.0"?><urlset><url><loc> https://a.org/x?a=1&amp;b=2 </loc></url><url><loc><![CDATA[https://a.org/y]]></loc></url><url><location>no</location></url></urlset>', 10);
    assert.deepEqual(set, { kind: 'urlset', locs: ['https://a.org/x?a=1&b=2', 'https://a.org/y'] });
    assert.equal(sitemapLocs('<sitemapindex><sitemap><loc>https://a.org/s.xml</loc></sitemap></sitemapindex>', 10).kind, 'index');
    assert.equal(sitemapLocs('<html><body>not a sitemap</body></html>', 10).kind, 'unknown');
    const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024, 0x20));
    assert.match(sitemapText(bomb, 1024 * 1024).error ?? '', /larger than 1048576 bytes once decompressed/);
    assert.equal(sitemapText(gzipSync('<urlset/>'), 1024).text, '<urlset/>');
  });
});
