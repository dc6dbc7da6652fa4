/** crawler_a: the real client against the loopback fake of its contract (contracts §5). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import plugin from './index.js';
import { startCrawlerAFake } from './fake.js';
import { ServiceError, UnsupportedOptionError } from '../../core/sdk.js';
import { providerFaultSuite, withFake } from '../../core/testing/index.js';

const t = withFake(plugin, startCrawlerAFake);

/** Runs one endpoint through the real executor against the fake. */
async function run(operation: string, input: unknown, signal?: AbortSignal) {
  const r = await t.h.endpoint(operation, input, { signal });
  return { out: r.data, credits: r.credits };
}
const lastPost = () => t.fake.requests.filter((r) => r.method === 'POST').at(-1)!;

providerFaultSuite({ plugin, fake: startCrawlerAFake, endpoint: 'scrape', input: { url: 'https://example.org' } });

test('scrape sends bearer auth and formats, returns the document', async () => {
  const { out } = await run('scrape', { url: 'https://example.org/docs', formats: ['markdown', 'links'] });
  assert.match(out.markdown, /# Page \/docs/);
  assert.deepEqual([out.links, out.metadata.statusCode], [['https://example.org/docs/a'], 200]);
  const sent = t.fake.requests.at(-1)!;
  assert.deepEqual([sent.path, sent.body.formats, sent.body.onlyMainContent], ['/v2/scrape', ['markdown', 'links'], true]);
  await assert.rejects(run('scrape', { url: 'not a url' }), { status: 400 });
});

test('crawl starts a job, polls until completed, follows next pages and reports pages used', async () => {
  const before = t.fake.requests.length;
  const { out, credits } = await run('crawl', { url: 'https://example.org', limit: 5, maxDiscoveryDepth: 1 });
  assert.equal(out.status, 'completed');
  assert.deepEqual(out.data.map((d: any) => d.metadata.sourceURL), ['https://example.org', ...[1, 2, 3, 4].map((i) => `https://example.org/page-${i}`)]);
  assert.equal(credits, 50, '10 credits for each of the 5 pages returned');
  const calls = t.fake.requests.slice(before).map((r) => `${r.method} ${r.url.replace(/[0-9a-f-]{36}/, 'ID')}`);
  assert.deepEqual(calls, ['POST /v2/crawl', 'GET /v2/crawl/ID', 'GET /v2/crawl/ID', 'GET /v2/crawl/ID?skip=2', 'GET /v2/crawl/ID?skip=4']);
  assert.equal(t.fake.requests[before]!.body.maxDiscoveryDepth, 1);
});

test('crawl_site mapping: capability input in, results with url/status/content out', () => {
  const impl = plugin.implements!.find((i) => i.capability === 'crawl_site')!;
  assert.deepEqual(impl.mapInput!({ url: 'https://example.org', format: 'raw' }), { url: 'https://example.org', limit: 5, maxDiscoveryDepth: 2, formats: ['rawHtml'] });
  const out = impl.mapOutput!({ data: [{ markdown: '# T\n\n[a](b) **x**', metadata: { sourceURL: 'https://e.org/', statusCode: 200 } }] }, { url: 'https://e.org/', format: 'text' });
  assert.deepEqual(out, { url: 'https://e.org/', format: 'text', depth: 2, limit: 5, pages: 1, results: [{ url: 'https://e.org/', status: 200, content: 'T\n\na x' }], creditUsage: 10 });
});

test('crawl_site and map_site mappings: the options crawler_a has are sent, the rest (and a job-size limit) hand on', () => {
  const crawl = plugin.implements!.find((i) => i.capability === 'crawl_site')!;
  assert.deepEqual(crawl.mapInput!({ url: 'https://example.org', includePaths: ['^/docs/'], allowSubdomains: true, ignoreQueryParameters: true, sitemap: 'skip' }), {
    url: 'https://example.org', limit: 5, maxDiscoveryDepth: 2, formats: ['markdown'], includePaths: ['^/docs/'], allowSubdomains: true, ignoreQueryParameters: true, sitemap: 'skip',
  });
  assert.throws(() => crawl.mapInput!({ url: 'https://example.org', limit: 101 }), (e) => e instanceof UnsupportedOptionError && /'limit' above 100/.test(e.message));
  const map = plugin.implements!.find((i) => i.capability === 'map_site')!;
  assert.deepEqual(map.mapInput!({ url: 'example.org', search: 'docs', sitemap: 'only' }), { url: 'https://example.org', limit: 5000, includeSubdomains: false, sitemap: 'only', search: 'docs' });
  assert.throws(() => map.mapInput!({ url: 'https://example.org', excludePaths: ['^/x'] }), (e) => e instanceof UnsupportedOptionError);
  assert.deepEqual(map.mapOutput!({ links: [{ url: 'https://e.org/a', title: 'A', extra: 1 }, { url: 'https://e.org/b' }] }, {}), { links: [{ url: 'https://e.org/a', title: 'A' }, { url: 'https://e.org/b' }], count: 2 });
});

test('search, map and screenshot', async () => {
  const s = await run('search', { query: 'puppeteer', limit: 2 });
  assert.deepEqual([s.out.web.length, s.out.web[0].title], [2, 'puppeteer result 1']);
  const m = await run('map', { url: 'https://example.org/' });
  assert.deepEqual(m.out.links.map((l: any) => l.url), ['https://example.org', 'https://example.org/about', 'https://example.org/blog']);
  const hits = t.fake.screenshotHits;
  const shot = await run('screenshot', { url: 'https://example.org/', fullPage: true, viewport: { width: 800, height: 600 } });
  // The provider's image is copied into our file store: our signed link, never the provider's.
  assert.ok(!shot.out.url.startsWith(t.fake.url), shot.out.url);
  assert.match(shot.out.url, /\/files\/[\w-]+\?expires=\d+&sig=/);
  assert.deepEqual([shot.out.contentType, t.fake.screenshotHits], ['image/png', hits + 1]);
  assert.deepEqual(lastPost().body.formats, [{ type: 'screenshot', fullPage: true, viewport: { width: 800, height: 600 } }]);
});

test('the screenshot capability maps blockCookieBanners to blockAds and fills screenshotUrl; clip and autoScroll are refused', async () => {
  const r = await t.h.capability('screenshot', { url: 'example.org', blockCookieBanners: false });
  const sent = lastPost().body;
  assert.deepEqual([sent.url, sent.blockAds], ['https://example.org', false]);
  assert.match(r.data.url, /\/files\/[\w-]+\?expires=\d+&sig=/);
  assert.equal(r.data.screenshotUrl, r.data.url);
  await t.h.capability('screenshot', { url: 'example.org' });
  assert.equal(lastPost().body.blockAds, true);
  const refused = (input: object, field: string) =>
    assert.rejects(t.h.capability('screenshot', { url: 'example.org', ...input }), (e: unknown) => e instanceof ServiceError && e.status === 400 && e.message.includes(field));
  await refused({ clipRectangle: { x: 0, y: 0, width: 10, height: 10 } }, 'clipRectangle');
  await refused({ autoScroll: true }, 'autoScroll');
});

test('a failed job and a job lost upstream (404 while polling) are 502s, so the chain falls back', async () => {
  try {
    t.fake.jobMode = 'failed';
    await assert.rejects(run('crawl', { url: 'https://example.org' }), { status: 502, message: 'Failed to retrieve the crawl from crawler_a: the job failed.' });
    t.fake.jobMode = 'lost';
    await assert.rejects(run('crawl', { url: 'https://example.org' }), { status: 502, message: 'Failed to retrieve the crawl from crawler_a: the job is no longer known upstream.' });
    // Neither needs cancelling: one ended, the other is unknown upstream.
    assert.deepEqual(t.fake.cancelled, []);
  } finally {
    t.fake.reset();
  }
});

test('a crawl we stop waiting for (caller gone or time limit) is cancelled upstream', async () => {
  t.fake.jobMode = 'stuck';
  try {
    const ctl = new AbortController();
    const before = t.fake.requests.length;
    const call = run('crawl', { url: 'https://example.org' }, ctl.signal);
    // Abort once the job exists and is being polled.
    while (!t.fake.requests.slice(before).some((r) => r.method === 'GET')) await new Promise((r) => setTimeout(r, 5));
    ctl.abort(new Error('time limit reached'));
    await assert.rejects(call);
    const id = /\/v2\/crawl\/([\w-]+)/.exec(t.fake.requests.slice(before).find((r) => r.method === 'GET')!.path)![1]!;
    // The cancel is sent off the caller's path: wait for it to arrive.
    for (let i = 0; i < 200 && !t.fake.cancelled.includes(id); i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(t.fake.cancelled, [id]);
    assert.deepEqual(t.fake.requests.slice(before).filter((r) => r.method === 'DELETE').map((r) => r.path), [`/v2/crawl/${id}`]);
  } finally {
    t.fake.reset();
  }
});
