/** shot_a: the real client against the fake of its contract (contracts §7a), through the executor; test/screenshot.test.ts proves through the server that what it cannot do is refused, free. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import plugin from './index.js';
import { shotError, startFake } from './fake.js';
import { exactly, like, pngSize, providerFaultSuite, withFake } from '../../core/testing/index.js';

const t = withFake(plugin, startFake);

providerFaultSuite({
  // Its plan's screenshot quota (screenshots_limit_reached) reads as a rate limit today.
  plugin, fake: startFake, endpoint: 'screenshot', expect: { 'out of credits': '503 Rate limit exceeded. Please try again later.' },
  also: {
    'a name that does not resolve is the caller\'s': [(f) => f.failWith(400, shotError('name_not_resolved', 'Name not resolved')), '400 shot_a rejected the request: Name not resolved.'],
    'host_returned_error': [(f) => f.failWith(500, shotError('host_returned_error')), '502 Failed to retrieve data from shot_a service.'],
  },
});

test('screenshot sends the options as JSON (the fake takes the key only in its header); the PNG lands in the file store', async () => {
  const { data, credits } = await t.h.endpoint('screenshot', { url: 'https://example.org', viewport: { width: 640, height: 480 }, wait: 1500 });
  like(t.fake.last(), { body: exactly({ url: 'https://example.org', format: 'png', full_page: false, response_type: 'by_format', wait_until: 'load', viewport_width: 640, viewport_height: 480, delay: 2, block_cookie_banners: true }) });
  const png = await t.h.file(data.url);
  assert.deepEqual([data.contentType, data.size, credits, ...pngSize(png)], ['image/png', png.length, 10, 640, 480]);
});

test('the capability passes clipRectangle, blockCookieBanners and the flat fields through and fills screenshotUrl', async () => {
  const r = await t.h.capability('screenshot', { url: 'example.org', clipRectangle: { x: 10, y: 20, width: 300, height: 150 }, blockCookieBanners: false, width: 800, height: 600, waitFor: 1000 });
  like(t.fake.last().body, { url: 'https://example.org', block_cookie_banners: false, clip_x: 10, clip_y: 20, clip_width: 300, clip_height: 150, viewport_width: 800, viewport_height: 600, delay: 1 });
  // The catalogue's price: 20, and 10 more for the wait.
  assert.deepEqual([r.data.screenshotUrl, r.credits, ...pngSize(await t.h.file(r.data.screenshotUrl))], [r.data.url, 30, 300, 150]);
});
