/**
 * `POST /api/v1/screenshot` (issue 14) through the real server with the service's own Chromium,
 * against pages served on loopback: the route and its 400s, the price (20, +10 with autoScroll,
 * +10 with wait > 0) read from the balance, a clip rectangle's size and content, a cookie banner
 * hidden by default (and kept with `blockCookieBanners: false`), and auto-scroll loading content
 * that only appears when scrolled into view. And the provider shot_a (against its fake) refusing,
 * free and before any upstream call, what it cannot do (issue 28).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { inflateSync } from 'node:zlib';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startFake as startShotAFake } from '../plugins/shot_a/fake.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

const html = (body: string, head = '') => `<!doctype html><html><head><title>Page</title>${head}</head><body style="margin:0;background:#fff">${body}</body></html>`;

const PAGES: Record<string, string> = {
  // A green 150×80 block at (10, 20) on white.
  '/block': html('<div style="position:absolute;left:10px;top:20px;width:150px;height:80px;background:#0f0"></div>'),
  // A consent overlay covering the whole viewport with the scroll locked, as OneTrust does.
  '/banner': html('<p>Content</p><div id="onetrust-consent-sdk"><div style="position:fixed;inset:0;background:#f00;z-index:9999">We use cookies</div></div>', '<style>body{overflow:hidden}</style>'),
  // White for 300 ms, then a green page: only a capture that waited shows green.
  '/turns-green': html('<script>setTimeout(() => { document.body.style.background = "#0f0"; }, 300)</script>'),
  // 1,500 px of page, then a sentinel that fetches 3,000 px more once it is scrolled into view.
  '/lazy': html(
    `<div style="height:1500px">Top</div><div id="sentinel" style="height:10px"></div>
<script>
new IntersectionObserver((entries, obs) => {
  if (!entries.some((e) => e.isIntersecting)) return;
  obs.disconnect();
  fetch('/more').then((r) => r.text()).then((t) => {
    const d = document.createElement('div');
    d.style.height = '3000px';
    d.textContent = t;
    document.body.appendChild(d);
  });
}).observe(document.getElementById('sentinel'));
</script>`,
  ),
};

let site: http.Server;
let base = '';
let moreHits = 0;

/** Width and height of a JPEG from its first start-of-frame segment. */
function jpegSize(jpg: Buffer): [number, number] {
  for (let off = 2; off + 9 < jpg.length; ) {
    const marker = jpg[off + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return [jpg.readUInt16BE(off + 7), jpg.readUInt16BE(off + 5)];
    off += 2 + jpg.readUInt16BE(off + 2);
  }
  assert.fail('no frame header in the JPEG');
}

/** Width and height of a lossy (VP8) or lossless (VP8L) WebP. */
function webpSize(webp: Buffer): [number, number] {
  const chunk = webp.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return [webp.readUInt16LE(26) & 0x3fff, webp.readUInt16LE(28) & 0x3fff];
  if (chunk === 'VP8L') {
    const bits = webp.readUInt32LE(21);
    return [(bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1];
  }
  assert.equal(chunk, 'VP8X');
  return [1 + webp.readUIntLE(24, 3), 1 + webp.readUIntLE(27, 3)];
}

/** RGB of pixel (x, y) of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes). */
function pixel(png: Buffer, x: number, y: number): [number, number, number] {
  const width = png.readUInt32BE(16);
  const colorType = png[25]!;
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  assert.ok(bpp && png[24] === 8 && png[28] === 0, 'an 8-bit RGB(A) PNG');
  const idat: Buffer[] = [];
  for (let off = 8; off < png.length; ) {
    const len = png.readUInt32BE(off);
    if (png.toString('latin1', off + 4, off + 8) === 'IDAT') idat.push(png.subarray(off + 8, off + 8 + len));
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  let prev = Buffer.alloc(stride);
  let row = prev;
  for (let r = 0; r <= y; r++) {
    const filter = raw[r * (stride + 1)]!;
    const line = raw.subarray(r * (stride + 1) + 1, (r + 1) * (stride + 1));
    row = Buffer.alloc(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? row[i - bpp]! : 0;
      const b = prev[i]!;
      const c = i >= bpp ? prev[i - bpp]! : 0;
      const p = a + b - c;
      const pred = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      row[i] = (line[i]! + pred) & 0xff;
    }
    prev = row;
  }
  return [row[x * bpp]!, row[x * bpp + 1]!, row[x * bpp + 2]!];
}

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

before(async () => {
  ({ server: site, base } = await serveLoopback((req, res) => {
    if (req.url === '/more') {
      moreHits++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('Loaded when scrolled into view');
    }
    const page = Object.hasOwn(PAGES, req.url!) ? PAGES[req.url!] : undefined;
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not found');
  }));
});
after(() => {
  closeLoopback(site);
});

describe('POST /api/v1/screenshot (issue 14), own Chromium', () => {
  let s: TestServer;
  let key = '';
  const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  const shoot = (body: unknown) => s.call('POST', '/api/v1/screenshot', { key, body });

  before(async () => {
    s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ALLOW_PRIVATE_NETWORK: 'true', WEB_PAGE_TIMEOUT_MS: '10000', BROWSER_MAX_PAGES: '1' } });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(() => s?.close());

  it('answers screenshotUrl (a stored PNG) for 20 credits; +10 with autoScroll, +10 with wait, 40 with both', async () => {
    for (const [extra, price] of [[{}, 20], [{ autoScroll: true }, 30], [{ wait: 100 }, 30], [{ autoScroll: true, wait: 100 }, 40], [{ wait: 0 }, 20]] as const) {
      const before = await balance();
      const res = await shoot({ url: `${base}/block`, viewport: { width: 400, height: 300 }, ...extra });
      assert.equal(res.status, 200, res.text);
      assert.equal(await balance(), before - price, JSON.stringify(extra));
      const png = await download(res.json.screenshotUrl);
      assert.equal(png.subarray(1, 4).toString(), 'PNG');
      assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [400, 300]);
      assert.equal(res.json.url, res.json.screenshotUrl);
      assert.ok(Date.parse(res.json.expiresAt) > Date.now() + 23 * 3600_000, 'a 24 h link');
    }
  });

  it('refuses bad input with the 400 texts, free', async () => {
    const before = await balance();
    const cases: [unknown, string][] = [
      [{}, "'url' parameter is required and must be a non-empty string."],
      [{ url: '' }, "'url' parameter is required and must be a non-empty string."],
      [{ url: 'ftp://example.org/' }, 'Invalid URL: only http and https URLs can be fetched (got ftp).'],
      [{ url: `${base}/block`, wait: 5001 }, "'wait' must be a number of milliseconds between 0 and 5000."],
      [{ url: `${base}/block`, viewport: { width: 3841, height: 600 } }, "'viewport' must be an object with integer 'width' (100-3840) and 'height' (100-10240)."],
      [{ url: `${base}/block`, viewport: { width: 800, height: 10241 } }, "'viewport' must be an object with integer 'width' (100-3840) and 'height' (100-10240)."],
      [{ url: `${base}/block`, clipRectangle: { x: 0, y: 0, width: 0, height: 10 } }, "'clipRectangle' must be an object with integer 'x' and 'y' (0 or more), 'width' (1-3840) and 'height' (1-10240)."],
      [{ url: `${base}/block`, clipRectangle: { x: 0, y: 0, width: 10 } }, "'clipRectangle' must be an object with integer 'x' and 'y' (0 or more), 'width' (1-3840) and 'height' (1-10240)."],
      [{ url: `${base}/block`, blockCookieBanners: 'yes' }, "'blockCookieBanners' must be a boolean."],
      [{ url: `${base}/block`, autoScroll: 1 }, "'autoScroll' must be a boolean."],
    ];
    for (const [body, error] of cases) {
      const res = await shoot(body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.json.error, error, JSON.stringify(body));
    }
    assert.equal(await balance(), before);
  });

  it('adds https:// to a URL without a scheme (an unresolvable host is then the 502 for https, free)', async () => {
    const before = await balance();
    const res = await shoot({ url: 'no-such-host.invalid/page' });
    assert.equal(res.status, 502, res.text);
    assert.equal(res.json.error, 'Failed to retrieve https://no-such-host.invalid/page: the host name does not resolve.');
    assert.equal(await balance(), before);
  });

  it('clipRectangle: the PNG is exactly the rectangle, showing what is there', async () => {
    const res = await shoot({ url: `${base}/block`, viewport: { width: 400, height: 300 }, clipRectangle: { x: 10, y: 20, width: 150, height: 80 } });
    assert.equal(res.status, 200, res.text);
    const png = await download(res.json.screenshotUrl);
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [150, 80]);
    assert.deepEqual(pixel(png, 75, 40), [0, 255, 0], 'the green block fills the clip');
    assert.deepEqual(pixel(png, 0, 0), [0, 255, 0]);
    // A rectangle below the viewport is captured from the page too.
    const low = await shoot({ url: `${base}/block`, viewport: { width: 400, height: 300 }, clipRectangle: { x: 0, y: 250, width: 200, height: 100 } });
    assert.equal(low.status, 200, low.text);
    const lowPng = await download(low.json.screenshotUrl);
    assert.deepEqual([lowPng.readUInt32BE(16), lowPng.readUInt32BE(20)], [200, 100]);
  });

  it('hides a cookie banner by default; blockCookieBanners: false keeps it', async () => {
    const hidden = await shoot({ url: `${base}/banner`, viewport: { width: 300, height: 200 } });
    assert.equal(hidden.status, 200, hidden.text);
    assert.deepEqual(pixel(await download(hidden.json.screenshotUrl), 150, 150), [255, 255, 255]);
    const kept = await shoot({ url: `${base}/banner`, viewport: { width: 300, height: 200 }, blockCookieBanners: false });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(pixel(await download(kept.json.screenshotUrl), 150, 150), [255, 0, 0]);
  });

  it('autoScroll loads content that appears only when scrolled into view', async () => {
    const plain = await shoot({ url: `${base}/lazy`, fullPage: true, viewport: { width: 400, height: 300 } });
    assert.equal(plain.status, 200, plain.text);
    assert.ok(plain.json.pageHeight < 2000, `without autoScroll the page stays short: ${plain.json.pageHeight}`);
    const hitsBefore = moreHits;
    const scrolled = await shoot({ url: `${base}/lazy`, fullPage: true, viewport: { width: 400, height: 300 }, autoScroll: true });
    assert.equal(scrolled.status, 200, scrolled.text);
    assert.equal(moreHits, hitsBefore + 1, 'the lazy part was fetched');
    assert.ok(scrolled.json.pageHeight >= 4500, `with autoScroll the lazy part is on the page: ${scrolled.json.pageHeight}`);
    const png = await download(scrolled.json.screenshotUrl);
    assert.equal(png.readUInt32BE(20), scrolled.json.pageHeight);
  });

  it('flat width, height, waitFor, format, quality and deviceScaleFactor are honoured (issue 28), read from the bytes', async () => {
    const flat = await shoot({ url: `${base}/block`, width: 800, height: 600 });
    assert.equal(flat.status, 200, flat.text);
    const png = await download(flat.json.screenshotUrl);
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [800, 600]);
    assert.deepEqual([flat.json.width, flat.json.height, flat.json.contentType], [800, 600, 'image/png']);

    const jpeg = await shoot({ url: `${base}/block`, width: 640, height: 480, format: 'jpeg', quality: 40 });
    assert.equal(jpeg.status, 200, jpeg.text);
    const jpg = await download(jpeg.json.screenshotUrl);
    assert.deepEqual([jpg[0], jpg[1]], [0xff, 0xd8]);
    assert.deepEqual(jpegSize(jpg), [640, 480]);
    assert.deepEqual([jpeg.json.width, jpeg.json.height, jpeg.json.contentType], [640, 480, 'image/jpeg']);
    assert.equal((await fetch(jpeg.json.screenshotUrl)).headers.get('content-type'), 'image/jpeg');
    const better = await download((await shoot({ url: `${base}/block`, width: 640, height: 480, format: 'jpeg', quality: 95 })).json.screenshotUrl);
    assert.ok(better.length > jpg.length, `quality 95 (${better.length} B) is a bigger file than quality 40 (${jpg.length} B)`);

    const webp = await shoot({ url: `${base}/block`, width: 300, height: 200, format: 'webp' });
    assert.equal(webp.status, 200, webp.text);
    const wp = await download(webp.json.screenshotUrl);
    assert.equal(wp.toString('latin1', 8, 12), 'WEBP');
    assert.deepEqual(webpSize(wp), [300, 200]);
    assert.equal(webp.json.contentType, 'image/webp');

    const scaled = await shoot({ url: `${base}/block`, width: 400, height: 300, deviceScaleFactor: 2 });
    const big = await download(scaled.json.screenshotUrl);
    assert.deepEqual([big.readUInt32BE(16), big.readUInt32BE(20)], [800, 600]);
    assert.deepEqual(pixel(big, 40, 60), [0, 255, 0], 'the block at (10, 20) CSS px lies at twice that in device pixels');

    const before = await balance();
    const waited = await shoot({ url: `${base}/turns-green`, width: 200, height: 200, waitFor: 1500 });
    assert.equal(waited.status, 200, waited.text);
    assert.deepEqual(pixel(await download(waited.json.screenshotUrl), 100, 100), [0, 255, 0]);
    assert.equal(await balance(), before - 30, 'waitFor is priced as wait');
  });

  it('refuses flat fields out of range with their 400 texts, free', async () => {
    const before = await balance();
    const cases: [unknown, string][] = [
      [{ url: `${base}/block`, width: 99 }, "'width' must be an integer between 100 and 3840."],
      [{ url: `${base}/block`, height: 10241 }, "'height' must be an integer between 100 and 10240."],
      [{ url: `${base}/block`, waitFor: 6000 }, "'waitFor' must be a number of milliseconds between 0 and 5000."],
      [{ url: `${base}/block`, format: 'gif' }, "'format' must be one of: png, jpeg, webp."],
      [{ url: `${base}/block`, format: 'jpeg', quality: 0 }, "'quality' must be an integer between 1 and 100."],
      [{ url: `${base}/block`, quality: 50 }, "'quality' applies to jpeg and webp only: set 'format' to jpeg or webp."],
      [{ url: `${base}/block`, deviceScaleFactor: 4 }, "'deviceScaleFactor' must be a number between 1 and 3."],
    ];
    for (const [body, error] of cases) {
      const res = await shoot(body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.json.error, error, JSON.stringify(body));
    }
    assert.equal(await balance(), before);
  });
});

describe('the screenshot capability with provider shot_a, through the server', () => {
  let s: TestServer;
  let shotA: Awaited<ReturnType<typeof startShotAFake>>;
  let key = '';
  before(async () => {
    shotA = await startShotAFake();
    s = await startServer({ serviceConfig: pluginsConfig(['shot_a']), env: shotA.env });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(async () => {
    await s?.close();
    await shotA?.close();
  });

  it('what shot_a cannot do is refused, not ignored: autoScroll, a format or a scale are a 400, free, never sent upstream', async () => {
    const cases: [object, string][] = [
      [{ autoScroll: true }, "'autoScroll' is not supported by provider shot_a; use provider web or browser_a."],
      [{ format: 'jpeg' }, "'format' jpeg is not supported by provider shot_a; use provider web."],
      [{ deviceScaleFactor: 2 }, "'deviceScaleFactor' is not supported by provider shot_a; use provider web."],
    ];
    for (const [extra, error] of cases) {
      const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'screenshot', provider: 'shot_a', input: { url: 'example.org', ...extra } } });
      assert.deepEqual([res.status, res.json.error], [400, error], JSON.stringify(extra));
    }
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 1000);
    assert.equal(shotA.requests.length, 0);
  });
});
