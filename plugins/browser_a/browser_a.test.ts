/** browser_a: the real client against the fake of its contract (contracts §7b), through the executor. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import plugin from './index.js';
import { startFake } from './fake.js';
import { pngSize, providerFaultSuite, withFake } from '../../core/testing/index.js';

const t = withFake(plugin, startFake);

providerFaultSuite({ plugin, fake: startFake, endpoint: 'screenshot', input: { url: 'https://example.org' } });

test('screenshot posts Puppeteer options with the token in the query; the PNG is stored', async () => {
  const r = await t.h.endpoint('screenshot', { url: 'https://example.org', fullPage: true, viewport: { width: 320, height: 200 }, wait: 250 });
  const sent = t.fake.last();
  assert.deepEqual([sent.path, sent.query.token, sent.body], ['/screenshot', t.fake.apiKey, { url: 'https://example.org', options: { type: 'png', fullPage: true }, gotoOptions: { waitUntil: 'load' }, viewport: { width: 320, height: 200 }, waitForTimeout: 250 }]);
  assert.deepEqual(pngSize(await t.h.file(r.data.url)), [320, 400]);
});

test('the screenshot capability sends clip, scrollPage and the cookie-banner style tag, and fills screenshotUrl', async () => {
  const r = await t.h.capability('screenshot', { url: 'example.org', clipRectangle: { x: 5, y: 6, width: 120, height: 90 }, autoScroll: true, wait: 100 });
  const sent = t.fake.last().body;
  assert.deepEqual([sent.url, sent.options.clip, sent.scrollPage], ['https://example.org', { x: 5, y: 6, width: 120, height: 90 }, true]);
  assert.match(sent.addStyleTag[0].content, /#onetrust-consent-sdk[\s\S]*display: none !important/);
  assert.deepEqual([r.data.screenshotUrl, r.credits], [r.data.url, 40]);
  assert.deepEqual(pngSize(await t.h.file(r.data.screenshotUrl)), [120, 90]);
  await t.h.capability('screenshot', { url: 'example.org', blockCookieBanners: false }); // no banner CSS then
  assert.equal(t.fake.last().body.addStyleTag, undefined);
});

test('scrape returns matches per selector; its own 408 is a 502 that says the page timed out', async () => {
  const r = await t.h.endpoint('scrape', { url: 'https://example.org', elements: [{ selector: 'h1' }, { selector: 'p' }] });
  assert.deepEqual([r.data.data.map((d: any) => d.selector), r.data.data[0].results[0].text], [['h1', 'p'], 'Fake https://example.org']);
  t.fake.failWith(408);
  await assert.rejects(t.h.endpoint('scrape', { url: 'https://example.org' }), { status: 502, message: 'Failed to retrieve the page through browser_a: the request timed out.' });
});
