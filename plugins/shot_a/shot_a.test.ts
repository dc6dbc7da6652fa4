/** shot_a: the real client against the fake of its contract (contracts §7a), through the executor. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import plugin from './index.js';
import { shotError, startFake } from './fake.js';
import { outcome, pngSize, providerFaultSuite, withFake } from '../../core/testing/index.js';

const t = withFake(plugin, startFake);

providerFaultSuite({
  plugin, fake: startFake, endpoint: 'screenshot', input: { url: 'https://example.org' },
  // Its plan's screenshot quota (screenshots_limit_reached) reads as a rate limit today.
  expect: { 'out of credits': '503 Rate limit exceeded. Please try again later.' },
  also: {
    'a name that does not resolve is the caller\'s': [(f) => f.failWith(400, shotError('name_not_resolved', 'Name not resolved')), '400 shot_a rejected the request: Name not resolved.'],
    'host_returned_error': [(f) => f.failWith(500, shotError('host_returned_error')), '502 Failed to retrieve data from shot_a service.'],
  },
});

test('screenshot sends the key in a header and options as JSON; the PNG lands in the file store', async () => {
  const { data, credits } = await t.h.endpoint('screenshot', { url: 'https://example.org', viewport: { width: 640, height: 480 }, wait: 1500 });
  assert.equal(t.fake.last().headers['x-access-key'], t.fake.apiKey);
  assert.deepEqual(t.fake.last().body, { url: 'https://example.org', format: 'png', full_page: false, response_type: 'by_format', wait_until: 'load', viewport_width: 640, viewport_height: 480, delay: 2, block_cookie_banners: true });
  const png = await t.h.file(data.url);
  assert.deepEqual([data.contentType, data.size, credits, ...pngSize(png)], ['image/png', png.length, 10, 640, 480]);
});

test('the capability passes clipRectangle, blockCookieBanners and the flat fields through and fills screenshotUrl', async () => {
  const r = await t.h.capability('screenshot', { url: 'example.org', clipRectangle: { x: 10, y: 20, width: 300, height: 150 }, blockCookieBanners: false, width: 800, height: 600, waitFor: 1000 });
  const { url, block_cookie_banners, clip_x, clip_y, clip_width, clip_height, viewport_width, viewport_height, delay } = t.fake.last().body;
  assert.deepEqual([url, block_cookie_banners, clip_x, clip_y, clip_width, clip_height, viewport_width, viewport_height, delay], ['https://example.org', false, 10, 20, 300, 150, 800, 600, 1]);
  // The catalogue's price: 20, and 10 more for the wait.
  assert.deepEqual([r.data.screenshotUrl, r.credits, ...pngSize(await t.h.file(r.data.screenshotUrl))], [r.data.url, 30, 300, 150]);
});

test('what shot_a cannot do is refused, not ignored: autoScroll, a format or a scale (issue 28)', async () => {
  for (const [extra, message] of [
    [{ autoScroll: true }, "400 'autoScroll' is not supported by provider shot_a; use provider web or browser_a."],
    [{ format: 'jpeg' }, "400 'format' jpeg is not supported by provider shot_a; use provider web."],
    [{ deviceScaleFactor: 2 }, "400 'deviceScaleFactor' is not supported by provider shot_a; use provider web."],
  ] as const) assert.equal(await outcome(t.h.capability('screenshot', { url: 'example.org', ...extra })), message);
});
