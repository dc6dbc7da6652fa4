/**
 * The console in a real browser (issue 26 "Done when"): Debian's Chromium driven headless through
 * puppeteer-core against the real server, one browser for the file. Admin and key-holder flows,
 * hostile data, CSRF and cross-site posts, sign-in throttling, and axe-core on every page.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { startServer, request, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { assertAccessible, launchBrowser, waitText, watchedPage, type TestBrowser, type WatchedPage } from './helpers/console-browser.js';

const HOSTILE = '<img src=x onerror=alert(1)>';

/** A loopback site: a plain page, a page with scripts and markup in its text, and another site's form. */
function startSite(): Promise<{ base: string; other: string; close(): void; target: { url: string } }> {
  const target = { url: '' };
  const server = http.createServer((req, res) => {
    const html = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    if (req.url === '/hello') return html('<!doctype html><title>Hello</title><h1>Hello console</h1><p>Some <strong>bold</strong> words and a <a href="https://example.org/x">link</a>.</p>');
    if (req.url === '/hostile') {
      return html(`<!doctype html><title>Hostile</title><script>alert('page script')</script><h1>Hostile page</h1>
        <p>&lt;img src=x onerror=alert(2)&gt; and &lt;script&gt;alert(3)&lt;/script&gt;</p><img src="x" onerror="alert(4)"><p>[click](javascript:alert(5))</p>`);
    }
    if (req.url === '/form') {
      // Another site's page that posts to the console as soon as it loads.
      return html(`<!doctype html><title>Evil</title><form id="f" method="POST" action="${target.url}" enctype="text/plain"><input name='{"name":"evil","x":"' value='"}'></form>
        <script>document.getElementById('f').submit()</script>`);
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({ base: `http://127.0.0.1:${port}`, other: `http://localhost:${port}`, target, close: () => server.close() });
    });
  });
}

describe('console (browser)', () => {
  let s: TestServer;
  let site: Awaited<ReturnType<typeof startSite>>;
  let tb: TestBrowser;
  const pages: WatchedPage[] = [];

  const open = async () => {
    const w = await watchedPage(tb.browser);
    pages.push(w);
    return w;
  };
  // The sign-in page is the same for every sign-in: axe-core checks it once.
  let signInChecked = false;
  const signIn = async (w: WatchedPage, role: 'admin' | 'key', secret: string) => {
    await w.page.goto(`${s.url}/console`);
    await w.page.waitForSelector('#secret');
    if (!signInChecked) {
      await assertAccessible(w.page, 'sign-in');
      signInChecked = true;
    }
    await w.page.click(`input[name=role][value=${role}]`);
    await w.page.type('#secret', secret);
    await w.page.click('button[type=submit]');
  };
  const go = async (w: WatchedPage, path: string, heading: string) => {
    await w.page.goto(`${s.url}/console/app/${path}`);
    await waitText(w.page, 'main h1', heading);
  };

  before(async () => {
    site = await startSite();
    s = await startServer({ serviceConfig: pluginsConfig(['web', 'search_a']), env: { ALLOW_PRIVATE_NETWORK: 'true', WEB_PAGE_TIMEOUT_MS: '5000' } });
    site.target.url = `${s.url}/console/api/admin/keys`;
    tb = await launchBrowser();
  });
  after(async () => {
    for (const p of pages) await p.close().catch(() => {});
    await tb?.close();
    await s?.close();
    site?.close();
  });

  it('serves the console at /console (/ redirects) with a strict CSP, and a first load under 250 KB of compressed JavaScript', async () => {
    const root = await fetch(`${s.url}/`, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/console');
    const page = await request(`${s.url}/console`, 'GET');
    assert.equal(page.status, 200);
    const csp = page.headers['content-security-policy']!;
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.doesNotMatch(page.text, /<script>(?!<\/script>)|<script [^>]*>[^<]/, 'no inline script');
    const js = await fetch(`${s.url}/console/assets/app.js`);
    const body = Buffer.from(await js.arrayBuffer());
    assert.equal(js.status, 200);
    assert.ok(gzipSync(body).length <= 250 * 1024, `app.js is ${gzipSync(body).length} bytes gzipped`);
    assert.equal((await request(`${s.url}/docs`, 'GET')).status, 200);
  });

  it('admin: signs in, creates a key (secret shown once), tops it up, blocks a provider (discovery changes), and the overview counts calls just made', async () => {
    const w = await open();
    const { page } = w;
    await signIn(w, 'admin', s.adminToken);
    await waitText(page, 'main h1', 'Overview');
    await page.waitForSelector('[data-figure=calls]');
    await assertAccessible(page, 'overview');

    await go(w, 'keys', 'Keys');
    await page.type('#k-name', 'Acme robots');
    await page.type('#k-credits', '0');
    await page.click('#create-title ~ form button[type=submit]');
    await page.waitForSelector('#secret-value');
    const secret = await page.$eval('#secret-value', (el) => (el as HTMLInputElement).value);
    assert.match(secret, /^cia_/);
    await assertAccessible(page, 'keys (secret shown)');
    const [done] = await page.$$('xpath/.//button[normalize-space()="Done"]');
    await done!.click();
    await page.waitForSelector('#secret-value', { hidden: true });
    await page.reload();
    await waitText(page, 'tbody tr td a', 'Acme robots');
    assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');
    const keyId = (await s.admin('GET', '/keys?search=acme')).json.items[0].id as string;

    // Top up on the key's page.
    await page.click('tbody tr td a');
    await waitText(page, '#key-title', 'Key Acme robots');
    await assertAccessible(page, 'key detail');
    await page.type('#c-amount', '500');
    await page.type('#c-reason', 'welcome credits');
    await page.click('form[aria-label=Credits] button[type=submit]');
    await waitText(page, '[data-figure=key-credits]', '500');
    assert.equal((await s.call('GET', '/api/v2/balance', { key: secret })).json.data.credits, 500);

    // Blocking the web provider on the policy page removes it from the key's discovery.
    const endpoints = async () => (await s.call('POST', '/api/v2/search', { key: secret, body: { type: 'endpoint', limit: 100 } })).json.data.items.map((i: { id: string }) => i.id);
    assert.ok((await endpoints()).includes('web.scrape'));
    await go(w, `policy?id=${keyId}`, 'Policy');
    await page.waitForSelector('#p-provider-web');
    await assertAccessible(page, 'policy');
    await page.select('#p-provider-web', 'block');
    await waitText(page, '[data-policy-row=web] [data-effective]', 'Blocked');
    assert.match(await page.$eval('[data-policy-row=web] td:last-child', (el) => el.textContent ?? ''), /key's rule on web/);
    assert.ok(!(await endpoints()).includes('web.scrape'), 'discovery no longer lists the blocked provider');
    assert.deepEqual((await s.admin('GET', `/keys/${keyId}`)).json.policy.block, ['web']);

    // Calls just made show on the overview.
    await go(w, 'overview', 'Overview');
    const before = Number((await waitText(page, '[data-figure=calls]', /^\d[\d,]*$/)).replace(/,/g, ''));
    for (let i = 0; i < 3; i++) assert.equal((await s.call('GET', '/api/v2/balance', { key: secret })).status, 200);
    await page.click('form.toolbar button[type=submit]');
    await waitText(page, '[data-figure=calls]', String(before + 3));
    assert.ok(await page.$('figure.chart canvas'), 'the chart is drawn');

    for (const [path, heading] of [['usage', 'Usage'], ['providers', 'Providers'], ['engines', 'Engines'], ['files', 'Files']]) {
      await go(w, path!, heading!);
      await page.waitForSelector('table tbody tr');
      await assertAccessible(page, heading!);
    }
    assert.deepEqual(w.dialogs, []);
    assert.deepEqual(w.errors, []);
  });

  it('key holder: runs scrape_page on a local page from the playground, sees the markdown rendered and the balance drop by 10', async () => {
    const { key } = await s.createKey({ credits: 100, name: 'Holder' });
    const w = await open();
    const { page } = w;
    await signIn(w, 'key', key);
    await waitText(page, 'main h1', 'Balance & usage');
    await waitText(page, '[data-figure=balance]', '100');
    await assertAccessible(page, 'key home');

    await go(w, 'playground', 'Playground');
    await page.waitForSelector('#pg-target option[value="capability:scrape_page"]');
    await page.select('#pg-target', 'capability:scrape_page');
    await page.waitForSelector('#f-input-url');
    await page.type('#f-input-url', `${site.base}/hello`);
    await page.click('#f-input-renderJs');
    await page.click('#f-input-renderJs');
    await waitText(page, 'pre.curl', /"renderJs":false/);
    assert.doesNotMatch(await page.$eval('pre.curl', (el) => el.textContent ?? ''), new RegExp(key), 'the curl shows no key');
    await assertAccessible(page, 'playground form');
    await page.click('form[aria-label=Input] button[type=submit]');
    await waitText(page, '[data-figure=status]', '200', 30_000);
    await waitText(page, '.rendered .markdown h1', 'Hello console');
    assert.equal(await page.$eval('.rendered .markdown strong', (el) => el.textContent), 'bold');
    await waitText(page, '[data-figure=charged]', '10');
    await waitText(page, '[data-figure=balance]', '90');
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 90);
    await assertAccessible(page, 'playground result');
    assert.deepEqual(w.dialogs, []);
    assert.deepEqual(w.errors, []);

    // Rotated elsewhere: the old key's session can do nothing more and the page asks to sign in.
    const { json: keyRow } = await s.admin('GET', '/keys?search=Holder');
    assert.equal((await s.admin('POST', `/keys/${keyRow.items[0].id}/rotate`)).status, 200);
    await page.goto(`${s.url}/console/app/home`);
    await page.waitForSelector('#secret');
  });

  it('a key with a hostile name and a scraped page with scripts execute nothing', async () => {
    const { key } = await s.createKey({ credits: 100, name: HOSTILE });
    const admin = await open();
    await signIn(admin, 'admin', s.adminToken);
    await waitText(admin.page, 'main h1', 'Overview');
    await go(admin, 'keys', 'Keys');
    await admin.page.waitForFunction((name) => [...document.querySelectorAll('tbody a')].some((a) => a.textContent === name), {}, HOSTILE);
    assert.equal(await admin.page.$('main tbody img'), null, 'the name is text, not markup');

    const holder = await open();
    await signIn(holder, 'key', key);
    await waitText(holder.page, 'main h1', 'Balance & usage');
    await go(holder, 'playground', 'Playground');
    await holder.page.waitForSelector('#pg-target option[value="capability:scrape_page"]');
    await holder.page.select('#pg-target', 'capability:scrape_page');
    await holder.page.waitForSelector('#f-input-url');
    await holder.page.type('#f-input-url', `${site.base}/hostile`);
    await holder.page.click('#f-input-renderJs');
    await holder.page.click('#f-input-renderJs');
    await holder.page.click('form[aria-label=Input] button[type=submit]');
    await waitText(holder.page, '[data-figure=status]', '200', 30_000);
    await waitText(holder.page, '.rendered .markdown h1', 'Hostile page');
    // Markup in the page's text shows as text.
    assert.match(await holder.page.$eval('.rendered .markdown', (el) => el.textContent ?? ''), /<img src=x onerror=alert\(2\)> and <script>alert\(3\)<\/script>/);
    assert.equal(await holder.page.$('.result img, .result script'), null);
    assert.equal(await holder.page.$('.markdown a[href^="javascript"]'), null);
    for (const w of [admin, holder]) {
      assert.deepEqual(w.dialogs, [], 'no dialog');
      assert.deepEqual(w.errors, [], 'no console error');
    }
  });

  it('a cross-site form post is refused, and so is a call without the CSRF token', async () => {
    const before = (await s.admin('GET', '/keys?limit=500')).json.items.length;
    const w = await open();
    await signIn(w, 'admin', s.adminToken);
    await waitText(w.page, 'main h1', 'Overview');
    const nav = w.page.waitForNavigation({ waitUntil: 'load' });
    await w.page.goto(`${site.other}/form`);
    const res = await nav.catch(() => undefined);
    const status = res?.status() ?? Number(await w.page.evaluate(() => document.body.textContent?.match(/"code"/) ? 403 : 0));
    assert.ok(status === 401 || status === 403, `status ${status}`);
    assert.equal((await s.admin('GET', '/keys?limit=500')).json.items.length, before, 'no key was created');

    // With a valid session cookie but without the page's CSRF token: 403.
    const login = await fetch(`${s.url}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ role: 'admin', secret: s.adminToken }) });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    assert.match(login.headers.get('set-cookie')!, /HttpOnly; SameSite=Strict/);
    const csrf = (await login.json()).csrf as string;
    const post = (headers: Record<string, string>) => fetch(`${s.url}/console/api/admin/keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ name: 'no-csrf' }) });
    const noToken = await post({});
    assert.equal(noToken.status, 403);
    assert.equal((await noToken.json()).code, 'FORBIDDEN');
    assert.equal((await post({ 'x-csrf-token': csrf, origin: 'http://evil.example' })).status, 403);
    assert.equal((await post({ 'x-csrf-token': csrf })).status, 201);
    // Sign-out ends the session: the cookie no longer opens anything.
    assert.equal((await fetch(`${s.url}/console/session`, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrf } })).status, 200);
    assert.equal((await fetch(`${s.url}/console/api/admin/keys`, { headers: { cookie } })).status, 401);
  });

  it('a wrong token is refused and the sixth try in a minute is throttled (429 with Retry-After)', async () => {
    const w = await open();
    await signIn(w, 'admin', 'wrong-token');
    await waitText(w.page, '[role=alert]', 'Invalid admin token.');
    for (let i = 2; i <= 5; i++) {
      const r = await request(`${s.url}/console/session`, 'POST', { body: { role: 'admin', secret: `wrong-${i}` } });
      assert.equal(r.status, 401);
    }
    const sixth = await request(`${s.url}/console/session`, 'POST', { body: { role: 'admin', secret: s.adminToken } });
    assert.equal(sixth.status, 429);
    assert.ok(Number(sixth.headers['retry-after']) > 0);
    await w.page.type('#secret', 'still-wrong');
    await w.page.click('button[type=submit]');
    await waitText(w.page, '[role=alert]', /Rate limit exceeded.*Try again in \d+ s\./);
    assert.ok(!w.page.url().includes('wrong'), 'the token is never in the URL');
  });
});
