/** spider_a: the real client against the loopback fake of its contract (contracts §6), through the executor. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pluginHarness, type PluginHarness } from '../../core/testing/index.js';
import plugin from './index.js';
import { startSpiderAFake, type SpiderAFake } from './fake.js';

let fake: SpiderAFake;
let spider: PluginHarness;

before(async () => {
  fake = await startSpiderAFake();
  spider = await pluginHarness(plugin, { env: fake.env });
});
after(async () => {
  await spider.close();
  await fake.close();
});

/** The HTTP status a call ends with (200 on success). */
const status = (p: Promise<unknown>) => p.then(() => 200, (e: { status?: number }) => e.status ?? 0);

test('scrape posts to /v1/scrape with bearer auth and returns the page', async () => {
  const { data, credits } = await spider.endpoint('scrape', { url: 'https://example.org/a' });
  assert.deepEqual({ url: data.url, status: data.status }, { url: 'https://example.org/a', status: 200 });
  assert.match(data.content, /^# Spider page \/a/);
  assert.equal(credits, 10);
  assert.deepEqual(fake.requests.at(-1)!.path, '/scrape');
  assert.equal(fake.requests.at(-1)!.body.return_format, 'markdown');
});

test('crawl returns pages with content and charges only those (a target 404 without body is dropped)', async () => {
  const { data, credits, reserved } = await spider.endpoint('crawl', { url: 'https://example.org', limit: 6, depth: 1, return_format: 'text' });
  assert.equal(data.pages.length, 5);
  assert.ok(data.pages.every((p: any) => p.status === 200 && p.content.startsWith('Spider page')));
  assert.deepEqual({ reserved, credits }, { reserved: 60, credits: 50 });
  assert.deepEqual(fake.requests.at(-1)!.body, { url: 'https://example.org', limit: 6, depth: 1, return_format: 'text', request: 'smart' });
});

test('links lists page links; crawl_site through spider_a has the capability shape and charges pages returned', async () => {
  const { data } = await spider.endpoint('links', { url: 'https://example.org' });
  assert.deepEqual(data.pages[0].links, ['https://example.org/x', 'https://example.org/y']);
  const crawl = await spider.capability('crawl_site', { url: 'https://e.org', limit: 3, format: 'raw' }, { provider: 'spider_a' });
  assert.deepEqual(fake.requests.at(-1)!.body, { url: 'https://e.org', limit: 3, depth: 2, return_format: 'raw', request: 'smart' });
  assert.equal(crawl.provider, 'spider_a');
  // The fake's last page of a crawl is a target 404 without content: two pages come back, and only they are paid for.
  assert.equal(crawl.data.pages, 2);
  assert.equal(crawl.data.creditUsage, 20);
  assert.deepEqual({ reserved: crawl.reserved, credits: crawl.credits }, { reserved: 30, credits: 20 });
});

test('errors map to the catalogue: bad key 500, 429 → 503, 5xx → 502, bad input 400', async () => {
  const wrongKey = await pluginHarness(plugin, { env: { ...fake.env, SPIDER_A_API_KEY: 'nope' } });
  try {
    assert.equal(await status(wrongKey.endpoint('crawl', { url: 'https://example.org' })), 500);
  } finally {
    await wrongKey.close();
  }
  assert.equal(await status(spider.endpoint('crawl', { url: 'ftp://example.org' })), 400);
  fake.failWith = 429;
  assert.equal(await status(spider.endpoint('crawl', { url: 'https://example.org' })), 503);
  fake.failWith = 502;
  assert.equal(await status(spider.endpoint('crawl', { url: 'https://example.org' })), 502);
  fake.failWith = 402;
  assert.equal(await status(spider.endpoint('crawl', { url: 'https://example.org' })), 503);
  fake.failWith = undefined;
});
