/**
 * Change monitors (issue 27) past the first tests: a watched page that starts answering 404 is
 * delivered once as a signed `monitor.changed` webhook with `changeStatus: removed` (and not again
 * while it stays gone: its runs read `same`), and its return once with `changeStatus: new`; a key that is deactivated has its monitors paused at their next run (nothing
 * fetched or paid, no run after it); and a
 * key's row deleted from the store takes its monitors with it (keys are deactivated, never
 * deleted, by the admin API and CLI: the cascade is what "deleted with the key" has to go on).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { postgresBackend, type Backend } from './helpers/storage.js';
import { until } from './helpers/until.js';

// Short: the tests wait for several runs on it; MONITOR_POLL_MS stays well below it.
const INTERVAL = 500;
const ENV = { ALLOW_PRIVATE_NETWORK: 'true', MONITOR_MIN_INTERVAL_MS: String(INTERVAL), MONITOR_POLL_MS: '150' };

describe('monitors: a removed page, a deactivated key, a deleted key (PostgreSQL)', () => {
  let b: Backend;
  let s: TestServer;
  let site: http.Server;
  let hook: http.Server;
  let origin = '';
  let hookUrl = '';
  const gone = new Set<string>();
  const hits = new Map<string, number>();
  const got: { headers: Record<string, string>; body: string }[] = [];

  before(async () => {
    b = await postgresBackend();
    site = http.createServer((req, res) => {
      hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
      if (gone.has(req.url!)) {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<p>Not found</p>');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<title>Watched</title><p>The page at ${req.url}.</p>`);
    });
    hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    s = await startServer({ env: { ...ENV, ...b.env }, serviceConfig: pluginsConfig(['web']) });
  });
  after(async () => {
    await s?.close();
    site?.close();
    hook?.close();
    await b?.dispose();
  });

  it('a page that starts answering 404 fires one signed monitor.changed with changeStatus removed, and its return one with new', async () => {
    const { key } = await s.createKey({ credits: 1000 });
    const created = await s.call('POST', '/api/v2/monitors', { key, body: { url: `${origin}/removed`, interval: INTERVAL, options: { renderJs: false }, webhook: { url: hookUrl, metadata: { case: 'removed' } } } });
    assert.equal(created.status, 201, created.text);
    const id = created.json.data.id as string;
    const get = async () => (await s.call('GET', `/api/v2/monitors/${id}`, { key })).json.data;
    const first = await until(async () => {
      const d = await get();
      return d.runs >= 1 ? d : undefined;
    }, 'the baseline run', 30_000);
    assert.equal(first.lastRun.changeStatus, 'new');
    gone.add('/removed');
    const removed = await until(async () => {
      const d = await get();
      return d.changes >= 1 ? d : undefined;
    }, 'a run that finds the page removed', 30_000);
    assert.equal(removed.lastRun.changeStatus, 'removed');

    const mine = () => got.filter((g) => JSON.parse(g.body).metadata?.case === 'removed');
    await until(async () => (mine().length >= 1 ? true : undefined), 'the webhook', 30_000);
    const secret = (await s.call('GET', '/api/v2/webhook-secret', { key })).json.data.secret as string;
    const event = new Webhook(secret).verify(mine()[0]!.body, mine()[0]!.headers) as any;
    assert.equal(event.type, 'monitor.changed');
    assert.equal(event.monitorId, id);
    assert.equal(event.data.url, `${origin}/removed`);
    assert.equal(event.data.changeTracking.changeStatus, 'removed');
    assert.ok(Date.parse(event.data.changeTracking.previousScrapeAt) <= Date.parse(event.data.scrapedAt));
    assert.throws(() => new Webhook(Buffer.from('another secret').toString('base64')).verify(mine()[0]!.body, mine()[0]!.headers), 'signed with the key’s own secret');

    // Still gone on the next runs: nothing more to tell.
    const runs = removed.runs as number;
    await until(async () => ((await get()).runs >= runs + 2 ? true : undefined), 'two more runs', 30_000);
    const stillGone = await get();
    assert.equal(stillGone.changes, 1);
    // Change tracking remembers the removal: a page still gone is the same, not new every time.
    assert.equal(stillGone.lastRun.changeStatus, 'same');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(mine().length, 1, 'one webhook for the removal');

    // The page comes back: that is news too (change tracking calls it `new`, with the last check
    // that found it gone as previousScrapeAt), told once; then it stays the same and nothing more is sent.
    gone.delete('/removed');
    const back = await until(async () => {
      const d = await get();
      return d.changes >= 2 ? d : undefined;
    }, 'a run that finds the page back', 30_000);
    assert.equal(back.lastRun.changeStatus, 'new');
    await until(async () => (mine().length >= 2 ? true : undefined), 'the second webhook', 30_000);
    const returned = new Webhook(secret).verify(mine()[1]!.body, mine()[1]!.headers) as any;
    assert.equal(returned.data.changeTracking.changeStatus, 'new');
    assert.ok(Date.parse(returned.data.changeTracking.previousScrapeAt) >= Date.parse(event.data.scrapedAt), 'the last run that found it gone');
    assert.equal(returned.data.url, `${origin}/removed`);
    await until(async () => ((await get()).runs >= (back.runs as number) + 2 ? true : undefined), 'two runs on the page back', 30_000);
    const settled = await get();
    assert.equal(settled.lastRun.changeStatus, 'same');
    assert.equal(settled.changes, 2);
    assert.equal(mine().length, 2, 'one webhook for the return, none for the same page');
    await s.call('DELETE', `/api/v2/monitors/${id}`, { key });
  });

  it('a deactivated key: its monitor fetches nothing and pays nothing; deleting the key row deletes its monitors', async () => {
    const { id: keyId, key } = await s.createKey({ credits: 1000 });
    const created = await s.call('POST', '/api/v2/monitors', { key, body: { url: `${origin}/owned`, interval: INTERVAL, options: { renderJs: false } } });
    assert.equal(created.status, 201, created.text);
    const id = created.json.data.id as string;
    await until(async () => ((await s.call('GET', `/api/v2/monitors/${id}`, { key })).json.data.runs >= 1 ? true : undefined), 'a first run', 30_000);
    const off = await s.admin('PATCH', `/keys/${keyId}`, { active: false });
    assert.equal(off.status, 200, off.text);

    const db = new pg.Client({ connectionString: b.env.DATABASE_URL });
    await db.connect();
    try {
      const row = async () => (await db.query('SELECT runs, last_run, status FROM monitors WHERE id = $1', [id])).rows[0] as { runs: string; last_run: string; status: string } | undefined;
      // A run that had begun before the switch may still end; after it, every run is refused.
      const refused = await until(async () => {
        const r = await row();
        return r && JSON.parse(r.last_run).error ? r : undefined;
      }, 'a run refused for the key', 30_000);
      assert.equal(JSON.parse(refused.last_run).error.code, 'UNAUTHORIZED');
      const fetched = hits.get('/owned');
      const credits = async () => (await s.admin('GET', `/keys/${keyId}`)).json.credits as number;
      const balance = await credits();
      // The refused run paused the monitor: it runs no more until resumed.
      await until(async () => ((await row())!.status === 'paused' ? true : undefined), 'the monitor paused', 30_000);
      await new Promise((r) => setTimeout(r, 3 * INTERVAL));
      assert.equal(Number((await row())!.runs), Number(refused.runs), 'no run after the refusal');
      assert.equal(hits.get('/owned'), fetched, 'the page is not fetched for a deactivated key');
      assert.equal(await credits(), balance, 'nothing charged for a refused run');
      assert.equal(balance, 1000 - 10 * fetched!, 'each run before the switch charged as one scrape');

      // Whatever deletes a key's row (there is no API for it) takes its monitors with it.
      await db.query('DELETE FROM ledger WHERE key_id = $1', [keyId]);
      await db.query('DELETE FROM api_keys WHERE id = $1', [keyId]);
      assert.equal(await row(), undefined);
    } finally {
      await db.end();
    }
  });
});
