/**
 * The web lane's limits, through the real server against sites served on loopback: credits
 * reserved for a crawl's `limit` up front, robots.txt outcomes per RFC 9309 (5xx or unreachable
 * = disallow all, 4xx = allow all) and each origin's own Crawl-delay, the download cap of the
 * browser path (everything a page loads counts), and download links whose caching never outlives
 * their expiry.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

const webOnly = () => pluginsConfig(['web']);

/** One origin of a test site: its robots.txt answer and a log of what was fetched from it. */
interface Origin {
  server: http.Server;
  base: string;
  fetched: { path: string; at: number }[];
}

async function origin(robots: 'missing' | 'error' | 'unreachable' | string, page: (path: string) => string): Promise<Origin> {
  const fetched: Origin['fetched'] = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/robots.txt') {
      if (robots === 'unreachable') return req.socket.destroy();
      if (robots === 'missing' || robots === 'error') {
        res.writeHead(robots === 'missing' ? 404 : 503, { 'content-type': 'text/plain' });
        return res.end(robots);
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(robots);
    }
    fetched.push({ path: req.url!, at: Date.now() });
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><head><title>${req.url}</title></head><body>${page(req.url!)}</body></html>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, fetched };
}

const links = (o: Origin, paths: string[]) => paths.map((p) => `<a href="${o.base}${p}">${p}</a>`).join(' ');

describe('web lane limits', () => {
  let s: TestServer;
  let key: string;
  const origins: Origin[] = [];
  const credits = async (k = key) => (await s.call('GET', '/api/v2/balance', { key: k })).json.data.credits as number;
  const crawl = (body: unknown, k = key) => s.call('POST', '/api/v1/crawl', { key: k, body });
  const site = async (...args: Parameters<typeof origin>) => {
    const o = await origin(...args);
    origins.push(o);
    return o;
  };

  before(async () => {
    s = await startServer({
      serviceConfig: webOnly(),
      env: { ALLOW_PRIVATE_NETWORK: 'true', WEB_MAX_PAGE_BYTES: '1000000', WEB_PAGE_TIMEOUT_MS: '10000', BROWSER_MAX_PAGES: '1', FILES_MAX_RETENTION_MS: '3000' },
    });
    ({ key } = await s.createKey({ credits: 5000 }));
  });
  after(async () => {
    await s?.close();
    for (const o of origins) {
      o.server.closeAllConnections();
      o.server.close();
    }
  });

  it('crawl reserves limit × 10 credits up front: a balance below it is refused with 403 and nothing is fetched or charged', async () => {
    const o = await site('missing', () => '<p>page</p>');
    const poor = await s.createKey({ credits: 49 });
    const res = await crawl({ url: `${o.base}/`, limit: 5 }, poor.key);
    assert.equal(res.status, 403, res.text);
    assert.deepEqual(res.json, { error: 'Insufficient credits. Please top up your account.' });
    assert.equal(await credits(poor.key), 49);
    assert.deepEqual(o.fetched, []);
    // Exactly enough for the reservation: the crawl runs and only the page returned is charged.
    const enough = await s.createKey({ credits: 50 });
    const ok = await crawl({ url: `${o.base}/`, limit: 5 }, enough.key);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.pages, 1);
    assert.equal(await credits(enough.key), 40);
  });

  it('robots.txt: a 5xx or unreachable file forbids the origin, a 4xx allows all (RFC 9309)', async () => {
    const before = await credits();
    // A robots.txt past our 512 KiB cap is unreadable too: the site's fault (502), not the caller's (413).
    const huge = `User-agent: *\n${'Disallow: /nothing-here\n'.repeat(30_000)}`;
    for (const robots of ['error', 'unreachable', huge]) {
      const o = await site(robots, () => '<p>page</p>');
      const res = await crawl({ url: `${o.base}/`, limit: 2 });
      assert.equal(res.status, 502, `${robots.slice(0, 20)}: ${res.text}`);
      assert.match(res.json.error, new RegExp(`Failed to retrieve ${o.base}/robots\\.txt`));
      assert.deepEqual(o.fetched, [], `${robots.slice(0, 20)}: no page of the origin was fetched`);
    }
    assert.equal(await credits(), before, 'refused crawls cost nothing');

    // Another origin of the same site whose robots.txt fails is skipped; the others are crawled.
    const failing = await site('error', () => '<p>failing origin</p>');
    const gone = await site('unreachable', () => '<p>unreachable origin</p>');
    const open = await site('missing', () => '<p>open origin</p>');
    const start = await site('missing', () => links(failing, ['/a']) + links(gone, ['/b']) + links(open, ['/c']));
    const res = await crawl({ url: `${start.base}/`, limit: 10 });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.results.map((r: { url: string }) => r.url).sort(), [`${start.base}/`, `${open.base}/c`].sort());
    assert.deepEqual([failing.fetched, gone.fetched], [[], []]);
    assert.equal(res.json.creditUsage, 20);
  });

  it("each origin's own Crawl-delay spaces the requests to it", async () => {
    const slow = await site('User-agent: *\nCrawl-delay: 0.5\n', () => '<p>slow origin</p>');
    const start = await site('User-agent: *\nDisallow:\n', () => links(slow, ['/1', '/2', '/3']));
    const res = await crawl({ url: `${start.base}/`, limit: 4 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.pages, 4);
    const times = slow.fetched.map((f) => f.at).sort((a, b) => a - b);
    assert.equal(times.length, 3);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 450, `request ${i} came ${times[i]! - times[i - 1]!} ms after the previous one`);
  });

  it('renderJs:true: everything the page downloads counts against WEB_MAX_PAGE_BYTES (413, credits released)', async () => {
    let streamed = 0;
    const big = http.createServer((req, res) => {
      if (req.url === '/blob') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(Buffer.alloc(3_000_000, 0x41));
      }
      if (req.url === '/endless') {
        // A document that never ends: only a byte cap stops it before the page time limit.
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<!doctype html><title>endless</title><p>');
        const chunk = 'x'.repeat(64 * 1024);
        const timer = setInterval(() => {
          streamed += chunk.length;
          res.write(chunk);
        }, 5);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      // A small page whose script downloads 3 MB it never shows.
      res.end(`<!doctype html><title>heavy</title><p id="out">small</p><script>
        fetch('/blob').then((r) => r.arrayBuffer()).then((b) => { out.textContent = 'got ' + b.byteLength; });</script>`);
    });
    await new Promise<void>((r) => big.listen(0, '127.0.0.1', r));
    origins.push({ server: big, base: '', fetched: [] });
    const base = `http://127.0.0.1:${(big.address() as AddressInfo).port}`;
    const before = await credits();
    const heavy = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/heavy` } });
    assert.equal(heavy.status, 413, heavy.text);
    assert.equal(heavy.json.error, `Failed to retrieve ${base}/heavy: the response is larger than the 1 MB limit.`);
    const endless = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/endless` } });
    assert.equal(endless.status, 413, endless.text);
    const shot = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'screenshot', input: { url: `${base}/heavy` } } });
    assert.equal(shot.status, 413, shot.text);
    assert.equal(await credits(), before, 'failed renders release their reservation');
    // The same small page through the plain fetch is fine: its script never runs.
    const plain = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/heavy`, renderJs: false } });
    assert.equal(plain.status, 200, plain.text);
    assert.ok(streamed > 0);
  });

  it('a download link is cached no longer than it lives, and answers 404 once expired', async () => {
    const o = await site('missing', () => '<h1>Shot</h1>');
    const res = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${o.base}/`, format: 'screenshot' } });
    assert.equal(res.status, 200, res.text);
    const url = new URL(res.json.content);
    const expires = Number(url.searchParams.get('expires')) * 1000;
    const live = await fetch(url);
    assert.equal(live.status, 200);
    await live.arrayBuffer();
    const maxAge = Number(/max-age=(\d+)/.exec(live.headers.get('cache-control') ?? '')?.[1]);
    assert.ok(maxAge * 1000 <= expires - Date.now() + 1000, `max-age ${maxAge} s outlives the link (expires in ${expires - Date.now()} ms)`);
    await new Promise((r) => setTimeout(r, Math.max(0, expires - Date.now()) + 100));
    const expired = await fetch(url);
    assert.equal(expired.status, 404);
    assert.deepEqual(await expired.json(), { error: 'File not found or the download link has expired.' });
  });
});
