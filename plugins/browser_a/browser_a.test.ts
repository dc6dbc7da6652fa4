/** browser_a: the real client against the loopback fake of its contract (contracts §7b). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import plugin from './index.js';
import { startBrowserAFake, type BrowserAFake } from './fake.js';
import { ServiceError } from '../../core/sdk.js';
import { pluginHarness, type PluginHarness } from '../../core/testing/index.js';

let fake: BrowserAFake;

let h: PluginHarness;

before(async () => {
  fake = await startBrowserAFake();
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
async function run(operation: string, input: unknown, env: Record<string, string> = {}, signal?: AbortSignal) {
  const own = Object.keys(env).length > 0 ? await pluginHarness(plugin, { env: { ...fake.env, ...env } }) : undefined;
  try {
    const r = await (own ?? h).endpoint(operation, input, { signal });
    return { out: r.data, credits: r.credits };
  } finally {
    await own?.close();
  }
}

test('screenshot posts Puppeteer options with the token in the query; the PNG is stored', async () => {
  const { out } = await run('screenshot', { url: 'https://example.org', fullPage: true, viewport: { width: 320, height: 200 }, wait: 250 });
  const sent = fake.requests.at(-1)!;
  assert.equal(sent.path, '/screenshot');
  assert.equal(sent.query.token, fake.apiKey);
  assert.deepEqual(sent.body, { url: 'https://example.org', options: { type: 'png', fullPage: true }, gotoOptions: { waitUntil: 'load' }, viewport: { width: 320, height: 200 }, waitForTimeout: 250 });
  const u = new URL(out.url);
  const opened = await h.engines.files.open(u.pathname.split('/').pop()!, u.searchParams.get('expires')!, u.searchParams.get('sig')!);
  const png = await opened.bytes();
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [320, 400]);
});

test('the screenshot capability sends clip, scrollPage and the cookie-banner style tag, and fills screenshotUrl', async () => {
  const r = await h.capability('screenshot', { url: 'example.org', clipRectangle: { x: 5, y: 6, width: 120, height: 90 }, autoScroll: true, wait: 100 });
  const sent = fake.requests.at(-1)!.body;
  assert.equal(sent.url, 'https://example.org');
  assert.deepEqual(sent.options.clip, { x: 5, y: 6, width: 120, height: 90 });
  assert.equal(sent.scrollPage, true);
  assert.match(sent.addStyleTag[0].content, /#onetrust-consent-sdk[\s\S]*display: none !important/);
  assert.equal(r.data.screenshotUrl, r.data.url);
  assert.equal(r.credits, 40);
  const u = new URL(r.data.screenshotUrl);
  const opened = await h.engines.files.open(u.pathname.split('/').pop()!, u.searchParams.get('expires')!, u.searchParams.get('sig')!);
  const png = await opened.bytes();
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [120, 90]);
  await h.capability('screenshot', { url: 'example.org', blockCookieBanners: false });
  assert.equal(fake.requests.at(-1)!.body.addStyleTag, undefined);
});

test('scrape returns matches per selector', async () => {
  const { out } = await run('scrape', { url: 'https://example.org', elements: [{ selector: 'h1' }, { selector: 'p' }] });
  assert.deepEqual(out.data.map((d: any) => d.selector), ['h1', 'p']);
  assert.equal(out.data[0].results[0].text, 'Fake https://example.org');
});

test('plain-text errors map to the catalogue and never show the token', async () => {
  const status = (p: Promise<unknown>) => p.then(() => '200', (e) => (assert.ok(e instanceof ServiceError, String(e)), `${e.status} ${e.message}`));
  assert.equal(await status(run('screenshot', { url: 'https://example.org' }, { BROWSER_A_API_KEY: 'wrong' })), '500 Service authentication failed. Please contact support.');
  fake.failWith = 429;
  assert.equal(await status(run('screenshot', { url: 'https://example.org' })), '503 Rate limit exceeded. Please try again later.');
  fake.failWith = 408;
  assert.equal(await status(run('scrape', { url: 'https://example.org' })), '502 Failed to retrieve the page through browser_a: the request timed out.');
  fake.failWith = undefined;
  const down = await status(run('screenshot', { url: 'https://example.org' }, { BROWSER_A_BASE_URL: 'http://127.0.0.1:1' }));
  assert.equal(down, '502 Failed to retrieve data from browser_a service.');
  assert.doesNotMatch(down, /token/);
});
