/**
 * Screenshots served by crawler_a (issue 28) through the real server: the provider answers the
 * URL of an image on its own storage; the caller gets our signed 24-hour link to a copy in our
 * file store, as with the other providers, and the provider's URL never reaches the answer.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { SCREENSHOT_PNG, startCrawlerAFake, type CrawlerAFake } from '../plugins/crawler_a/fake.js';

let fake: CrawlerAFake;
let s: TestServer;
let key: string;

before(async () => {
  fake = await startCrawlerAFake();
  s = await startServer({ env: fake.env, serviceConfig: pluginsConfig(['crawler_a'], { screenshot: ['crawler_a'] }) });
  ({ key } = await s.createKey({ credits: 1000 }));
});
after(async () => {
  await s?.close();
  await fake?.close();
});

test('a crawler_a screenshot is answered as our signed link to a stored copy', async () => {
  const res = await s.call('POST', '/api/v1/screenshot', { key, body: { url: 'https://example.org/pricing' } });
  assert.equal(res.status, 200, res.text);
  assert.ok(!JSON.stringify(res.json).includes(fake.url), 'no provider URL in the answer');
  assert.ok(res.json.screenshotUrl.startsWith(`${s.url}/files/`), res.json.screenshotUrl);
  const expires = Number(new URL(res.json.screenshotUrl).searchParams.get('expires'));
  assert.ok(Math.abs(expires * 1000 - (Date.now() + 24 * 3600 * 1000)) < 120_000, 'valid for 24 hours');
  const image = await fetch(res.json.screenshotUrl);
  assert.equal(image.status, 200);
  assert.equal(image.headers.get('content-type'), 'image/png');
  assert.deepEqual(Buffer.from(await image.arrayBuffer()), SCREENSHOT_PNG);
  assert.equal(res.json.contentType, 'image/png');
});
