/**
 * Audit of issue 27, finding 1, through the real server: the caller's `headers` reach the page's
 * own origin only. An image, a script's fetch and a redirect to another origin (another port of
 * loopback) never carry them, with the SSRF guard's request interception on (ALLOW_HOSTS) and
 * off (ALLOW_PRIVATE_NETWORK), while the page and its same-origin requests still do.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

const SECRETS = { Authorization: 'Bearer CALLER-SECRET', 'X-Api-Key': 'K-SECRET', 'X-Test': 'abc' };

/** What each server was sent: the path and the caller's headers it saw, if any. */
type Seen = { path: string; auth?: string; key?: string; test?: string };
const seenBy = { own: [] as Seen[], other: [] as Seen[] };
const servers: http.Server[] = [];
let base = '';
let other = '';

function record(list: Seen[], req: http.IncomingMessage) {
  list.push({ path: req.url!, auth: req.headers.authorization, key: req.headers['x-api-key'] as string | undefined, test: req.headers['x-test'] as string | undefined });
}

async function listen(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

before(async () => {
  other = await listen((req, res) => {
    record(seenBy.other, req);
    if (req.url!.startsWith('/landing')) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Landing</title><p>landing page</p>');
    res.writeHead(200, { 'content-type': 'image/gif' }).end();
  });
  base = await listen((req, res) => {
    record(seenBy.own, req);
    const u = new URL(req.url!, 'http://x');
    if (u.pathname === '/page') {
      return void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<title>Page</title><p>X-Test=${req.headers['x-test'] ?? 'none'}</p><img src="/own.gif"><img src="${other}/pix.gif"><script>fetch("${other}/xhr").catch(() => {})</script>`);
    }
    if (u.pathname === '/redir') return void res.writeHead(302, { location: `${other}/landing` }).end();
    res.writeHead(200, { 'content-type': 'image/gif' }).end();
  });
});
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

for (const [label, env] of [
  ['guard interception on', { ALLOW_HOSTS: '127.0.0.1' }],
  ['guard interception off', { ALLOW_PRIVATE_NETWORK: 'true' }],
] as const) {
  describe(`caller headers stay with the page's origin (${label})`, () => {
    let s: TestServer;
    let key = '';
    const run = (input: unknown) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input } });
    before(async () => {
      s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ...env, BROWSER_MAX_PAGES: '1' } });
      key = (await s.createKey({ credits: 1000 })).key;
    });
    after(() => s?.close());

    it("the page and its own image get them; another origin's image and fetch do not", async () => {
      seenBy.own.length = 0;
      seenBy.other.length = 0;
      const res = await run({ url: `${base}/page`, headers: SECRETS, waitForSelector: 'img' });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data.content, /X-Test=abc/);
      const own = seenBy.own.find((x) => x.path === '/own.gif');
      assert.deepEqual(own, { path: '/own.gif', auth: SECRETS.Authorization, key: SECRETS['X-Api-Key'], test: 'abc' });
      const pix = seenBy.other.find((x) => x.path === '/pix.gif');
      assert.ok(pix, `the other origin was asked for its image: ${JSON.stringify(seenBy.other)}`);
      for (const x of seenBy.other) assert.deepEqual(x, { path: x.path, auth: undefined, key: undefined, test: undefined }, `sent to another origin: ${JSON.stringify(x)}`);
    });

    it('a redirect to another origin does not carry them', async () => {
      seenBy.other.length = 0;
      const res = await run({ url: `${base}/redir`, headers: SECRETS, renderJs: true });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data.content, /landing page/);
      const landing = seenBy.other.find((x) => x.path === '/landing');
      assert.deepEqual(landing, { path: '/landing', auth: undefined, key: undefined, test: undefined });
    });
  });
}
