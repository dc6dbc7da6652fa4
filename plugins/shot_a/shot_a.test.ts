/** shot_a: the real client against the loopback fake of its contract (contracts §7a). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import plugin from './index.js';
import { startShotAFake, type ShotAFake } from './fake.js';
import { ServiceError } from '../../core/sdk.js';
import { pluginHarness, type PluginHarness } from '../../core/testing/index.js';

let fake: ShotAFake;

let h: PluginHarness;

before(async () => {
  fake = await startShotAFake();
  h = await pluginHarness(plugin, { env: fake.env });
});
after(async () => {
  await h.close();
  await fake.close();
});

/**
 * Runs one endpoint through the real executor against the fake; `env` overrides its settings (in a
 * harness of its own, so the shared one keeps the fake's).
 */
async function run(input: unknown, env: Record<string, string> = {}) {
  const own = Object.keys(env).length > 0 ? await pluginHarness(plugin, { env: { ...fake.env, ...env } }) : undefined;
  try {
    const r = await (own ?? h).endpoint('screenshot', input);
    return { out: r.data, credits: r.credits };
  } finally {
    await own?.close();
  }
}

test('screenshot sends the key in a header and options as JSON; the PNG lands in the file store', async () => {
  const { out, credits } = await run({ url: 'https://example.org', viewport: { width: 640, height: 480 }, wait: 1500 });
  const sent = fake.requests.at(-1)!;
  assert.deepEqual(sent, { url: 'https://example.org', format: 'png', full_page: false, response_type: 'by_format', wait_until: 'load', viewport_width: 640, viewport_height: 480, delay: 2, block_cookie_banners: true });
  assert.equal(out.contentType, 'image/png');
  assert.match(out.url, /\/files\/[\w-]+\.?\w*\?/);
  const id = new URL(out.url).pathname.split('/').pop()!;
  const opened = await h.engines.files.open(id, new URL(out.url).searchParams.get('expires')!, new URL(out.url).searchParams.get('sig')!);
  const png = await opened.bytes();
  assert.equal(png.readUInt32BE(16), 640);
  assert.equal(png.readUInt32BE(20), 480);
  assert.equal(out.size, png.length);
  assert.equal(credits, 10);
});

test('the screenshot capability passes clipRectangle and blockCookieBanners through and fills screenshotUrl; autoScroll is refused', async () => {
  const r = await h.capability('screenshot', { url: 'example.org', clipRectangle: { x: 10, y: 20, width: 300, height: 150 }, blockCookieBanners: false });
  const sent = fake.requests.at(-1)!;
  assert.equal(sent.url, 'https://example.org');
  assert.equal(sent.block_cookie_banners, false);
  assert.deepEqual([sent.clip_x, sent.clip_y, sent.clip_width, sent.clip_height], [10, 20, 300, 150]);
  assert.equal(r.data.screenshotUrl, r.data.url);
  assert.equal(r.credits, 20);
  const opened = new URL(r.data.screenshotUrl);
  const file = await h.engines.files.open(opened.pathname.split('/').pop()!, opened.searchParams.get('expires')!, opened.searchParams.get('sig')!);
  const png = await file.bytes();
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [300, 150]);
  await assert.rejects(h.capability('screenshot', { url: 'example.org', autoScroll: true }), (e: unknown) => e instanceof ServiceError && e.status === 400 && /autoScroll/.test(e.message));
});

test('error codes map to the catalogue', async () => {
  const status = (p: Promise<unknown>) => p.then(() => 200, (e) => (assert.ok(e instanceof ServiceError, String(e)), `${e.status} ${e.message}`));
  assert.equal(await status(run({ url: 'https://example.org' }, { SHOT_A_API_KEY: 'bad' })), '500 Service authentication failed. Please contact support.');
  fake.failWith = 'concurrency_limit_reached';
  assert.equal(await status(run({ url: 'https://example.org' })), '503 Rate limit exceeded. Please try again later.');
  fake.failWith = 'name_not_resolved';
  assert.match(await status(run({ url: 'https://nowhere.invalid' })) as string, /^400 shot_a rejected the request/);
  fake.failWith = 'host_returned_error';
  assert.match(await status(run({ url: 'https://example.org' })) as string, /^502 Failed to retrieve data from shot_a service\.$/);
  fake.failWith = undefined;
});

test('the flat screenshot fields reach shot_a as its viewport and delay; a format or scale it cannot make is refused, not ignored (issue 28)', async () => {
  await h.capability('screenshot', { url: 'example.org', width: 800, height: 600, waitFor: 1000 });
  const sent = fake.requests.at(-1)!;
  assert.deepEqual([sent.viewport_width, sent.viewport_height, sent.delay], [800, 600, 1]);
  for (const [extra, text] of [
    [{ format: 'jpeg' }, "'format' jpeg is not supported by provider shot_a; use provider web."],
    [{ deviceScaleFactor: 2 }, "'deviceScaleFactor' is not supported by provider shot_a; use provider web."],
  ] as const) {
    await assert.rejects(h.capability('screenshot', { url: 'example.org', ...extra }), (err: ServiceError) => err.status === 400 && err.message === text);
  }
});
