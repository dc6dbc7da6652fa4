/** shot_a: the real client against the fake of its contract (contracts §7a), through the executor. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import plugin from './index.js';
import { shotError, startShotAFake } from './fake.js';
import { pngSize, providerFaultSuite, withFake } from '../../core/testing/index.js';

const t = withFake(plugin, startShotAFake);

// Its plan's screenshot quota (screenshots_limit_reached) reads as a rate limit today.
providerFaultSuite({ plugin, fake: startShotAFake, endpoint: 'screenshot', input: { url: 'https://example.org' }, expect: { 'out of credits': '503 Rate limit exceeded. Please try again later.' } });

test('screenshot sends the key in a header and options as JSON; the PNG lands in the file store', async () => {
  const { data, credits } = await t.h.endpoint('screenshot', { url: 'https://example.org', viewport: { width: 640, height: 480 }, wait: 1500 });
  const sent = t.fake.requests.at(-1)!;
  assert.equal(sent.headers['x-access-key'], t.fake.apiKey);
  assert.deepEqual(sent.body, { url: 'https://example.org', format: 'png', full_page: false, response_type: 'by_format', wait_until: 'load', viewport_width: 640, viewport_height: 480, delay: 2, block_cookie_banners: true });
  const png = await t.h.file(data.url);
  assert.deepEqual([data.contentType, data.size, credits, ...pngSize(png)], ['image/png', png.length, 10, 640, 480]);
});

test('the screenshot capability passes clipRectangle and blockCookieBanners through and fills screenshotUrl; autoScroll is refused', async () => {
  const r = await t.h.capability('screenshot', { url: 'example.org', clipRectangle: { x: 10, y: 20, width: 300, height: 150 }, blockCookieBanners: false });
  const sent = t.fake.requests.at(-1)!.body;
  assert.deepEqual([sent.url, sent.block_cookie_banners, sent.clip_x, sent.clip_y, sent.clip_width, sent.clip_height], ['https://example.org', false, 10, 20, 300, 150]);
  assert.deepEqual([r.data.screenshotUrl, r.credits], [r.data.url, 20]);
  assert.deepEqual(pngSize(await t.h.file(r.data.screenshotUrl)), [300, 150]);
  await assert.rejects(t.h.capability('screenshot', { url: 'example.org', autoScroll: true }), (e: any) => e.status === 400 && /autoScroll/.test(e.message));
});

test('its error codes: a name that does not resolve is the caller\'s 400, host_returned_error a 502', async () => {
  t.fake.failWith(400, shotError('name_not_resolved'));
  await assert.rejects(t.h.endpoint('screenshot', { url: 'https://nowhere.invalid' }), (e: any) => e.status === 400 && /^shot_a rejected the request/.test(e.message));
  t.fake.failWith(500, shotError('host_returned_error'));
  await assert.rejects(t.h.endpoint('screenshot', { url: 'https://example.org' }), { status: 502, message: 'Failed to retrieve data from shot_a service.' });
  t.fake.reset();
});

test('the flat screenshot fields reach shot_a as its viewport and delay; a format or scale it cannot make is refused, not ignored (issue 28)', async () => {
  await t.h.capability('screenshot', { url: 'example.org', width: 800, height: 600, waitFor: 1000 });
  const sent = t.fake.requests.at(-1)!.body;
  assert.deepEqual([sent.viewport_width, sent.viewport_height, sent.delay], [800, 600, 1]);
  for (const [extra, message] of [
    [{ format: 'jpeg' }, "'format' jpeg is not supported by provider shot_a; use provider web."],
    [{ deviceScaleFactor: 2 }, "'deviceScaleFactor' is not supported by provider shot_a; use provider web."],
  ] as const) {
    await assert.rejects(t.h.capability('screenshot', { url: 'example.org', ...extra }), { status: 400, message });
  }
});
