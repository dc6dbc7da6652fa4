/** spider_a: the real client against the fake of its contract (contracts §6), through the executor. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { providerFaultSuite, withFake } from '../../core/testing/index.js';
import plugin from './index.js';
import { startSpiderAFake } from './fake.js';

const t = withFake(plugin, startSpiderAFake);

providerFaultSuite({ plugin, fake: startSpiderAFake, endpoint: 'crawl', input: { url: 'https://example.org' } });

test('scrape posts to /v1/scrape with bearer auth and returns the page', async () => {
  const { data, credits } = await t.h.endpoint('scrape', { url: 'https://example.org/a' });
  assert.deepEqual({ url: data.url, status: data.status, credits }, { url: 'https://example.org/a', status: 200, credits: 10 });
  assert.match(data.content, /^# Spider page \/a/);
  assert.deepEqual([t.fake.requests.at(-1)!.path, t.fake.requests.at(-1)!.body.return_format], ['/v1/scrape', 'markdown']);
});

test('crawl returns pages with content and charges only those (a target 404 without body is dropped); bad input 400', async () => {
  const { data, credits, reserved } = await t.h.endpoint('crawl', { url: 'https://example.org', limit: 6, depth: 1, return_format: 'text' });
  assert.equal(data.pages.length, 5);
  assert.ok(data.pages.every((p: any) => p.status === 200 && p.content.startsWith('Spider page')));
  assert.deepEqual({ reserved, credits }, { reserved: 60, credits: 50 });
  assert.deepEqual(t.fake.requests.at(-1)!.body, { url: 'https://example.org', limit: 6, depth: 1, return_format: 'text', request: 'smart' });
  await assert.rejects(t.h.endpoint('crawl', { url: 'ftp://example.org' }), { status: 400 });
});

test('links lists page links; crawl_site through spider_a has the capability shape and charges pages returned', async () => {
  const { data } = await t.h.endpoint('links', { url: 'https://example.org' });
  assert.deepEqual(data.pages[0].links, ['https://example.org/x', 'https://example.org/y']);
  const crawl = await t.h.capability('crawl_site', { url: 'https://e.org', limit: 3, format: 'raw' }, { provider: 'spider_a' });
  assert.deepEqual(t.fake.requests.at(-1)!.body, { url: 'https://e.org', limit: 3, depth: 2, return_format: 'raw', request: 'smart' });
  // The fake's last page of a crawl is a target 404 without content: two pages come back, and only they are paid for.
  assert.deepEqual([crawl.provider, crawl.data.pages, crawl.data.creditUsage, crawl.reserved, crawl.credits], ['spider_a', 2, 20, 30, 20]);
});
