/**
 * Issue 27's stored state through the real server: the `maxAge` cache (a miss then a hit at the
 * same price, shared between keys and between instances on one PostgreSQL, never across
 * different headers or cookies and never handing one key's cookies to another), and change
 * tracking new → same → changed → removed with a git-style diff, per key, URL and tag, kept in the
 * store under the retention setting and deleted with the key.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import pg from 'pg';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { postgresBackend, type Backend } from './helpers/storage.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

let site: http.Server;
let base = '';
let count = 0;
let tracked: string | null = 'Line one\n\nLine two\n\nLine three';

before(async () => {
  ({ server: site, base } = await serveLoopback((req, res) => {
    const u = new URL(req.url!, 'http://x');
    if (u.pathname === '/count') {
      count++;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(`<title>Count</title><p>count ${count}</p><p>cookie ${req.headers.cookie ?? 'none'}</p>`);
    }
    if (u.pathname === '/tracked') {
      res.writeHead(tracked === null ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(tracked === null ? '<p>gone</p>' : `<title>Tracked</title>${tracked.split('\n\n').map((l) => `<p>${l}</p>`).join('')}`);
    }
    res.writeHead(404).end();
  }));
});
after(() => {
  closeLoopback(site);
});

const ENV = { ALLOW_PRIVATE_NETWORK: 'true', BROWSER_MAX_PAGES: '1' };

function client(s: TestServer, key: string) {
  return {
    run: (input: Record<string, unknown>) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input: { renderJs: false, ...input } } }),
    credits: async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number,
  };
}

describe('maxAge cache and change tracking, embedded store', () => {
  let s: TestServer;
  let a: ReturnType<typeof client>;
  let b: ReturnType<typeof client>;
  before(async () => {
    s = await startServer({ serviceConfig: pluginsConfig(['web']), env: ENV });
    a = client(s, (await s.createKey({ credits: 1000 })).key);
    b = client(s, (await s.createKey({ credits: 1000 })).key);
  });
  after(() => s?.close());

  it('a miss, then a hit from the cache at the same price; maxAge 0 and storeInCache false fetch', async () => {
    const before = await a.credits();
    const miss = await a.run({ url: `${base}/count`, maxAge: 60_000 });
    assert.equal(miss.status, 200, miss.text);
    assert.equal(miss.json.data.metadata.cacheState, 'miss');
    const seen = /count (\d+)/.exec(miss.json.data.content)![1];
    const hit = await a.run({ url: `${base}/count`, maxAge: 60_000 });
    assert.equal(hit.json.data.metadata.cacheState, 'hit');
    assert.match(hit.json.data.content, new RegExp(`count ${seen}\\b`));
    assert.ok(Date.now() - Date.parse(hit.json.data.metadata.cachedAt) < 60_000);
    assert.equal(await a.credits(), before - 20, 'a cached answer costs what a fetched one does');
    // Another key with the same options shares the answer.
    assert.equal((await b.run({ url: `${base}/count`, maxAge: 60_000 })).json.data.metadata.cacheState, 'hit');
    const fresh = await a.run({ url: `${base}/count` });
    assert.equal(fresh.json.data.metadata.cacheState, undefined);
    assert.doesNotMatch(fresh.json.data.content, new RegExp(`count ${seen}\\b`));
    // Other options are another entry; storeInCache false leaves none behind.
    assert.equal((await a.run({ url: `${base}/count`, maxAge: 60_000, formats: ['html'], storeInCache: false })).json.data.metadata.cacheState, 'miss');
    assert.equal((await a.run({ url: `${base}/count`, maxAge: 60_000, formats: ['html'] })).json.data.metadata.cacheState, 'miss');
  });

  it("cookies and headers never reach another key's answer or a cache entry without them", async () => {
    const withCookie = await a.run({ url: `${base}/count`, maxAge: 60_000, cookies: [{ name: 'sid', value: 'secret-a' }] });
    assert.equal(withCookie.json.data.metadata.cacheState, 'miss', 'an answer made with cookies is not the one without');
    assert.match(withCookie.json.data.content, /cookie sid=secret-a/);
    assert.equal((await a.run({ url: `${base}/count`, maxAge: 60_000, cookies: [{ name: 'sid', value: 'secret-a' }] })).json.data.metadata.cacheState, 'hit');
    // Key b sending the very same cookie gets its own fetch, not key a's answer.
    const sameCookie = await b.run({ url: `${base}/count`, maxAge: 60_000, cookies: [{ name: 'sid', value: 'secret-a' }] });
    assert.equal(sameCookie.json.data.metadata.cacheState, 'miss');
    for (const input of [{}, { headers: { 'X-Other': '1' } }]) {
      const other = await b.run({ url: `${base}/count`, maxAge: 60_000, ...input });
      assert.doesNotMatch(other.json.data.content, /secret-a/);
    }
  });

  it('change tracking: new, same, changed with a diff, removed; per tag and per key', async () => {
    const track = (c: ReturnType<typeof client>, tag?: string) => c.run({ url: `${base}/tracked`, formats: ['markdown', 'changeTracking'], ...(tag ? { tag } : {}) });
    const first = await track(a);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.json.data.changeTracking, { previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' });
    const same = await track(a);
    assert.equal(same.json.data.changeTracking.changeStatus, 'same');
    assert.ok(Date.parse(same.json.data.changeTracking.previousScrapeAt) <= Date.now());
    tracked = 'Line one\n\nLine 2\n\nLine three';
    const changed = await track(a);
    assert.equal(changed.json.data.changeTracking.changeStatus, 'changed');
    assert.equal(changed.json.data.changeTracking.diff, '--- previous\n+++ current\n@@ -1,5 +1,5 @@\n Line one\n \n-Line two\n+Line 2\n \n Line three');
    assert.match(changed.json.data.markdown, /Line 2/);
    assert.equal((await track(a, 'other')).json.data.changeTracking.changeStatus, 'new', 'a tag keeps its own history');
    assert.equal((await track(b)).json.data.changeTracking.changeStatus, 'new', 'another key has its own snapshots');
    tracked = null;
    const removed = await track(a);
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.json.data.changeTracking.changeStatus, 'removed');
    tracked = 'Back again';
    assert.equal((await track(a)).json.data.changeTracking.changeStatus, 'new');
  });
});

describe('two instances on one PostgreSQL store', () => {
  let backend: Backend;
  let s1: TestServer;
  let s2: TestServer;
  let keyId = '';
  let key = '';
  before(async () => {
    backend = await postgresBackend();
    s1 = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ...ENV, ...backend.env } });
    s2 = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ...ENV, ...backend.env } });
    ({ id: keyId, key } = await s1.createKey({ credits: 1000 }));
  });
  after(async () => {
    await s1?.close();
    await s2?.close();
    await backend?.dispose();
  });

  it('share cached answers and snapshots; snapshots past the retention are not compared against and go with their key', async () => {
    const one = client(s1, key);
    const two = client(s2, key);
    const miss = await one.run({ url: `${base}/count?shared`, maxAge: 60_000 });
    assert.equal(miss.json.data.metadata.cacheState, 'miss');
    const hit = await two.run({ url: `${base}/count?shared`, maxAge: 60_000 });
    assert.equal(hit.json.data.metadata.cacheState, 'hit');
    assert.equal(hit.json.data.content, miss.json.data.content);

    tracked = 'Stable text';
    const input = { url: `${base}/tracked`, formats: ['changeTracking'] };
    assert.equal((await one.run(input)).json.data.changeTracking.changeStatus, 'new');
    assert.equal((await two.run(input)).json.data.changeTracking.changeStatus, 'same');

    const db = new pg.Client({ connectionString: backend.env.DATABASE_URL });
    await db.connect();
    try {
      // Older than WEB_SNAPSHOT_RETENTION_DAYS (90): as if it were gone.
      await db.query(`UPDATE page_snapshots SET taken_at = now() - interval '91 days' WHERE key_id = $1`, [keyId]);
      assert.equal((await one.run(input)).json.data.changeTracking.changeStatus, 'new');
      const rows = async () => Number((await db.query('SELECT count(*) AS n FROM page_snapshots WHERE key_id = $1', [keyId])).rows[0].n);
      assert.equal(await rows(), 1);
      // Keys are deactivated, not deleted, by the API; whatever deletes one takes its snapshots too.
      await db.query('DELETE FROM ledger WHERE key_id = $1', [keyId]);
      await db.query('DELETE FROM api_keys WHERE id = $1', [keyId]);
      assert.equal(await rows(), 0);
    } finally {
      await db.end();
    }
  });
});
