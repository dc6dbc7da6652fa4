/**
 * Issue 27 (performance) without losing isolation, through the real server with one page slot:
 * the pool prepares the next context ahead, keeps a key's context warm for that key's next plain
 * call and closes a finished job's context a moment after its answer, yet no call ever sees what
 * an earlier call's page stored (cookies from the server or from a script, localStorage,
 * sessionStorage, IndexedDB, the pages in the tab's history, the HTTP cache), whichever key made it; a warm context is never
 * another key's, and a call with its own headers, cookies, location or device never runs in one (nor
 * leaves them to the key's next call). A finished call's
 * page is still closed (what it left open is cut). A page read as soon as it is quiet still
 * shows what it fetched right after its load event. An iframe's origin is cleared like the page's.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { serveLoopback } from './helpers/loopback.js';

let site: http.Server;
let base = '';
// The same pages on a second port: another origin of the same site, for an iframe.
let other: http.Server;
let otherBase = '';
let holds = 0;
let holdsClosed = 0;
let counted = 0;

const SHOW = `<title>Show</title><p id="out">pending</p><p id="idb">pending</p><script>
document.getElementById('out').textContent = 'storage=' + (localStorage.getItem('mark') ?? 'none') + ' session=' + (sessionStorage.getItem('mark') ?? 'none') + ' jscookie=' + (document.cookie || 'none') + ' history=' + history.length;
indexedDB.databases().then((dbs) => { const p = document.getElementById('idb'); p.textContent = 'idb=' + (dbs.map((d) => d.name).join(',') || 'none'); p.dataset.done = '1'; });
</script>`;

before(async () => {
  ({ server: site, base } = await serveLoopback((req, res) => {
    const u = new URL(req.url!, 'http://x');
    const html = (body: string, headers: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(body);
    };
    switch (u.pathname) {
      case '/set':
        // A cookie from the server, one from a script, and a mark in localStorage.
        return html(`<title>Set</title><p>set ${u.searchParams.get('who')}</p><script>localStorage.setItem('mark', '${u.searchParams.get('who')}'); sessionStorage.setItem('mark', 'x'); indexedDB.open('mark-db'); document.cookie = 'js=1; path=/';</script>`, {
          'set-cookie': 'server=1; Path=/; Max-Age=3600',
        });
      case '/show':
        return html(`${SHOW}<p>header=${req.headers.cookie ?? 'none'}</p>`);
      case '/after-load':
        // Requests started only after the load event: by a timer and by the next frame.
        return html(`<title>After</title><p>Static</p><script>
addEventListener('load', () => {
  setTimeout(() => fetch('/slow?n=1').then((r) => r.text()).then((t) => document.body.append(t)), 0);
  requestAnimationFrame(() => fetch('/slow?n=2').then((r) => r.text()).then((t) => document.body.append(t)));
});</script>`);
      case '/poll':
        return html('<title>Poll</title><p>Polling</p><script>fetch("/hold")</script>');
      case '/hold':
        // Never answered: only the page going away ends it.
        holds++;
        req.socket.on('close', () => holdsClosed++);
        return;
      case '/whoami':
        // What a site learns of its visitor: from the request, and from the page's own script.
        return html(`<meta name="viewport" content="width=device-width"><title>Who</title><p>x-test=${req.headers['x-test'] ?? 'none'} accept-language=${req.headers['accept-language'] ?? 'none'} ua=${/Mobile/.test(req.headers['user-agent'] ?? '') ? 'mobile' : 'desktop'}</p><p id="js">pending</p><script>
document.getElementById('js').textContent = 'language=' + navigator.language + ' zone=' + Intl.DateTimeFormat().resolvedOptions().timeZone + ' width=' + innerWidth + ' ratio=' + devicePixelRatio + ' touch=' + navigator.maxTouchPoints + ' jsua=' + (/Mobile/.test(navigator.userAgent) ? 'mobile' : 'desktop');
</script>`);
      case '/outer':
        return html(`<title>Outer</title><p>outer</p><iframe src="${u.searchParams.get('frame')}"></iframe>`);
      case '/counted':
        // Cacheable for an hour: only a browser that reads its HTTP cache would not ask again.
        counted++;
        return html(`<title>Counted</title><p>visit ${counted}</p>`, { 'cache-control': 'public, max-age=3600' });
      case '/slow':
        return void setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(` fetched-${u.searchParams.get('n')}`);
        }, 300);
      default:
        res.writeHead(404).end();
    }
  }));
  other = http.createServer((req, res) => site.emit('request', req, res));
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
after(() => {
  for (const server of [site, other]) {
    server.closeAllConnections();
    server.close();
  }
});

describe('browser contexts are never shared between keys, and a warm one keeps nothing of the previous call (issue 27)', () => {
  let s: TestServer;
  const scrape = (key: string, url: string, extra: Record<string, unknown> = {}) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input: { url, renderJs: true, ...extra } } });
  // The IndexedDB answer comes after the page's load, by a promise no frame waits for: read once it is there.
  const show = (key: string, origin = base) => scrape(key, `${origin}/show`, { waitForSelector: '#idb[data-done]' });

  before(async () => {
    s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ALLOW_HOSTS: '127.0.0.1', BROWSER_MAX_PAGES: '1', WEB_PAGE_TIMEOUT_MS: '8000' } });
  });
  after(() => s?.close());

  it('what one call stored is seen by no later call, of another key or the same, even right after it', async () => {
    const a = (await s.createKey({ credits: 1_000 })).key;
    const b = (await s.createKey({ credits: 1_000 })).key;
    for (let round = 0; round < 3; round++) {
      const set = await scrape(a, `${base}/set?who=a${round}`);
      assert.equal(set.status, 200, set.text);
      assert.match(set.json.data.content, new RegExp(`set a${round}`));
      // At once, while the first call's context may still be waiting to close.
      for (const key of [b, a]) {
        const shown = await show(key);
        assert.equal(shown.status, 200, shown.text);
        assert.match(shown.json.data.content, /storage=none session=none jscookie=none history=[12]\b/, `round ${round}`);
        assert.match(shown.json.data.content, /idb=none/, `round ${round}`);
        assert.match(shown.json.data.content, /header=none/, `round ${round}`);
      }
    }
  });

  it("a key's next plain call runs in its warm context, cleared; a call with its own cookies never does", async () => {
    const key = (await s.createKey({ credits: 1_000 })).key;
    // The warm context is reset a moment after the answer; the next call waits for that reset.
    const set = await scrape(key, `${base}/set?who=warm`);
    assert.equal(set.status, 200, set.text);
    await new Promise((r) => setTimeout(r, 300));
    const shown = await show(key);
    // history 2 (about:blank, then this page): the kept page, its earlier entries dropped; a fresh one has 1.
    assert.match(shown.json.data.content, /storage=none session=none jscookie=none history=2\b/);
    assert.match(shown.json.data.content, /idb=none/);
    assert.match(shown.json.data.content, /header=none/);
    // Cookies sent by the caller live in a context of their own, closed after the call.
    const withCookie = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input: { url: `${base}/show`, renderJs: true, cookies: [{ name: 'mine', value: 'secret' }] } } });
    assert.match(withCookie.json.data.content, /header=mine=secret/);
    const after = await scrape(key, `${base}/show`);
    assert.match(after.json.data.content, /header=none/);
    assert.match(after.json.data.content, /jscookie=none/);
  });

  // What these options set lives on the page and its context (extra headers, emulation), which a
  // warm context's reset does not undo: a call with one must run in a context of its own.
  const settings: [name: string, extra: Record<string, unknown>, shows: RegExp[]][] = [
    ['headers', { headers: { 'X-Test': 'abc' } }, [/x-test=abc/]],
    ['location', { location: { country: 'JP' } }, [/accept-language=ja-JP,ja;q=0\.9/, /language=ja-JP zone=Asia\/Tokyo/]],
    ['mobile', { mobile: true }, [/ua=mobile/, /width=390 ratio=3 touch=[1-9]\d* jsua=mobile/]],
  ];
  for (const [name, extra, shows] of settings) {
    it(`a key's call with ${name} leaves nothing of them to the same key's next plain call`, async () => {
      const key = (await s.createKey({ credits: 1_000 })).key;
      const whoami = (more: Record<string, unknown> = {}) => scrape(key, `${base}/whoami`, more);
      // A plain call first: the key then has a warm context (kept a moment after the answer),
      // which a call allowed to would run in and leave for the next.
      const plain = await whoami();
      assert.equal(plain.status, 200, plain.text);
      assert.match(plain.json.data.content, /x-test=none .*ua=desktop/);
      await new Promise((r) => setTimeout(r, 300));
      const withIt = await whoami(extra);
      assert.equal(withIt.status, 200, withIt.text);
      for (const shown of shows) assert.match(withIt.json.data.content, shown);
      await new Promise((r) => setTimeout(r, 300));
      const next = await whoami();
      assert.equal(next.status, 200, next.text);
      assert.equal(next.json.data.content, plain.json.data.content, `after a call with ${name}`);
    });
  }

  it("what an earlier call's iframe of another origin stored is gone too", async () => {
    const key = (await s.createKey({ credits: 1_000 })).key;
    const outer = await scrape(key, `${base}/outer?frame=${encodeURIComponent(`${otherBase}/set?who=frame`)}`);
    assert.equal(outer.status, 200, outer.text);
    await new Promise((r) => setTimeout(r, 300));
    const shown = await show(key, otherBase);
    assert.equal(shown.status, 200, shown.text);
    assert.match(shown.json.data.content, /storage=none session=none jscookie=none/);
    assert.match(shown.json.data.content, /idb=none/);
    assert.match(shown.json.data.content, /header=none/);
  });

  it("a key's next call fetches the page again, never from the HTTP cache an earlier call filled", async () => {
    const key = (await s.createKey({ credits: 1_000 })).key;
    const first = await scrape(key, `${base}/counted`);
    assert.equal(first.status, 200, first.text);
    await new Promise((r) => setTimeout(r, 300));
    const second = await scrape(key, `${base}/counted`);
    assert.equal(second.status, 200, second.text);
    const visits = [first, second].map((r) => /visit (\d+)/.exec(r.json.data.content)?.[1]);
    assert.deepEqual(visits, [String(counted - 1), String(counted)]);
  });

  it("a finished call's page is closed soon after its answer: a request it left open is cut", async () => {
    const key = (await s.createKey({ credits: 1_000 })).key;
    const res = await scrape(key, `${base}/poll`);
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.data.content, /Polling/);
    assert.equal(holds, 1);
    for (let i = 0; i < 100 && holdsClosed < 1; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(holdsClosed, 1, 'the page was never closed');
  });

  it('a page is read once what it fetched right after its load event has arrived', async () => {
    const key = (await s.createKey({ credits: 1_000 })).key;
    const res = await scrape(key, `${base}/after-load`);
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.data.content, /fetched-1/);
    assert.match(res.json.data.content, /fetched-2/);
  });
});
