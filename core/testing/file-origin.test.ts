/** `fileOrigin` on its own (issue 29): each file with its type and bytes, a 404 for anything else, no URL before it starts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileOrigin } from './file-origin.js';
import { SAMPLE_IMAGES } from './images.js';

const origin = fileOrigin({ '/cat.png': SAMPLE_IMAGES.png, '/page.html': { type: 'text/html', bytes: '<p>é</p>' } });
const early = (() => {
  try {
    return origin.url;
  } catch (err) {
    return (err as Error).message;
  }
})();

const get = async (path: string) => {
  const res = await fetch(origin.url + path);
  return [res.status, res.headers.get('content-type'), Buffer.from(await res.arrayBuffer())];
};

test('serves each file by its path, query string aside, and 404 for any other path', async () => {
  assert.deepEqual(await get('/cat.png?size=8'), [200, 'image/png', SAMPLE_IMAGES.png.bytes]);
  assert.deepEqual(await get('/page.html'), [200, 'text/html', Buffer.from('<p>é</p>')]);
  assert.deepEqual((await get('/dog.png')).slice(0, 1), [404]);
});

test('its url is not known before the origin starts', () => {
  assert.match(early, /starts in before\(\)/);
  assert.match(origin.url, /^http:\/\/127\.0\.0\.1:\d+$/);
});
