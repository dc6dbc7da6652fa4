/**
 * Change monitors (issue 27 "Monitors") through the real server on both stores: the routes and
 * their 400s and 404s, runs on the interval with change tracking charged as one scrape each, a
 * change seen, pause and delete; and on PostgreSQL two instances sharing monitors run each tick
 * once (page fetches = runs = charges).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, postgresBackend, type Backend } from './helpers/storage.js';
import { Webhook } from 'standardwebhooks';

// Short: the tests wait for runs on it (a few intervals each); MONITOR_POLL_MS stays well below it.
const INTERVAL = 500;
const ENV = { ALLOW_PRIVATE_NETWORK: 'true', MONITOR_MIN_INTERVAL_MS: String(INTERVAL), MONITOR_POLL_MS: '150' };

/** A webhook receiver that keeps every request's headers and raw body. */
function receiver() {
  const got: { headers: Record<string, string>; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(204).end();
    });
  });
  return { server, got };
}

/** A page whose text the test changes, counting how often it is fetched. */
function watchedSite() {
  const state = { text: 'First version of the page.', hits: 0 };
  const server = http.createServer((req, res) => {
    if (req.url !== '/watched') {
      res.writeHead(404).end();
      return;
    }
    state.hits += 1;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Watched</title></head><body><main><h1>Watched</h1><p>${state.text}</p></main></body></html>`);
  });
  return { server, state };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const backend of BACKENDS) {
  describe(`monitors (${backend.name})`, () => {
    let b: Backend;
    let s: TestServer;
    let site: ReturnType<typeof watchedSite>;
    let url = '';
    let key: string;
    let other: string;

    before(async () => {
      b = await backend.make();
      site = watchedSite();
      await new Promise<void>((r) => site.server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}/watched`;
      s = await startServer({ env: { ...ENV, ...b.env }, serviceConfig: pluginsConfig(['web']) });
      key = (await s.createKey({ credits: 1000 })).key;
      other = (await s.createKey({ credits: 1000 })).key;
    });
    after(async () => {
      await s?.close();
      site?.server.close();
      await b?.dispose();
    });

    it('refuses bad monitors with a 400 naming the field', async () => {
      const post = (body: unknown) => s.call('POST', '/api/v2/monitors', { key, body });
      const cases: [unknown, string][] = [
        [{ interval: INTERVAL }, 'url'],
        [{ url, interval: INTERVAL - 1 }, 'interval'],
        [{ url, interval: INTERVAL + 0.5 }, 'interval'],
        [{ url, interval: INTERVAL, webhook: { url: 'ftp://example.com/' } }, 'webhook.url'],
        [{ url, interval: INTERVAL, webhook: 'https://example.com/' }, 'webhook'],
        [{ url, interval: INTERVAL, options: { formats: ['nope'] } }, 'formats.0'],
        [{ url, interval: INTERVAL, options: { url } }, 'options.url'],
        [{ url, interval: INTERVAL, renderJs: false }, 'renderJs'],
      ];
      for (const [body, field] of cases) {
        const r = await post(body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.json.code, 'INVALID_INPUT');
        assert.ok(String(r.json.error).includes(field.split('.')[0]!), `${r.json.error} names ${field}`);
      }
      // Nothing was created and nothing charged.
      assert.equal((await s.call('GET', '/api/v2/monitors', { key })).json.meta.total, 0);
      assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 1000);
    });

    it('runs on its interval with change tracking, one scrape charged per run, and sees a change', async () => {
      const hook = receiver();
      await new Promise<void>((r) => hook.server.listen(0, '127.0.0.1', r));
      after(() => hook.server.close());
      const webhook = { url: `http://127.0.0.1:${(hook.server.address() as AddressInfo).port}/hook`, metadata: { project: 'watch' } };
      // A long first interval, so the baseline run is seen before the next one.
      const created = await s.call('POST', '/api/v2/monitors', { key, body: { url, interval: 5 * INTERVAL, options: { renderJs: false }, webhook } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.object, 'monitor');
      const id = created.json.data.id as string;
      assert.match(id, /^mon_/);
      assert.equal(created.json.data.status, 'active');
      const get = () => s.call('GET', `/api/v2/monitors/${id}`, { key });

      // The first run takes the baseline.
      const first = await until('the first run', async () => {
        const d = (await get()).json.data;
        return d.runs >= 1 ? d : undefined;
      });
      assert.equal(first.lastRun.changeStatus, 'new');
      const sooner = await s.call('PATCH', `/api/v2/monitors/${id}`, { key, body: { interval: INTERVAL } });
      assert.equal(sooner.status, 200);
      assert.equal(sooner.json.data.interval, INTERVAL);

      const same = await until('a run that finds the page the same', async () => {
        const d = (await get()).json.data;
        return d.runs >= 2 ? d : undefined;
      });
      assert.equal(same.lastRun.changeStatus, 'same');
      assert.equal(same.changes, 0);
      site.state.text = 'Second version of the page, with news.';
      const changed = await until('a run that sees the change', async () => {
        const d = (await get()).json.data;
        return d.changes >= 1 ? d : undefined;
      });
      assert.equal(changed.lastRun.changeStatus, 'changed');

      // One signed monitor.changed webhook, for the change only (none for new or same).
      await until('the webhook', async () => (hook.got.length >= 1 ? true : undefined));
      const secret = (await s.call('GET', '/api/v2/webhook-secret', { key })).json.data.secret as string;
      const event = new Webhook(secret).verify(hook.got[0]!.body, hook.got[0]!.headers) as any;
      assert.equal(event.type, 'monitor.changed');
      assert.equal(event.monitorId, id);
      assert.deepEqual(event.metadata, { project: 'watch' });
      assert.equal(event.data.changeTracking.changeStatus, 'changed');
      assert.match(event.data.changeTracking.diff, /\+.*Second version of the page, with news\./);
      assert.match(event.data.changeTracking.diff, /-.*First version of the page\./);

      // Another key sees nothing of it.
      assert.equal((await s.call('GET', `/api/v2/monitors/${id}`, { key: other })).status, 404);
      assert.equal((await s.call('PATCH', `/api/v2/monitors/${id}`, { key: other, body: { status: 'paused' } })).status, 404);
      assert.equal((await s.call('DELETE', `/api/v2/monitors/${id}`, { key: other })).status, 404);
      assert.equal((await s.call('GET', '/api/v2/monitors', { key: other })).json.meta.total, 0);

      // Paused: no more runs. Every run was one scrape, charged once.
      const paused = await s.call('PATCH', `/api/v2/monitors/${id}`, { key, body: { status: 'paused' } });
      assert.equal(paused.status, 200);
      assert.equal(paused.json.data.nextRunAt, null);
      // A run that started before the pause ends: its fetch is then counted among the runs.
      await new Promise((r) => setTimeout(r, INTERVAL));
      const runs = await until('the last run recorded', async () => {
        const n = (await get()).json.data.runs as number;
        return n === site.state.hits ? n : undefined;
      });
      await new Promise((r) => setTimeout(r, 2 * INTERVAL));
      assert.equal((await get()).json.data.runs, runs, 'a paused monitor does not run');
      assert.equal(site.state.hits, runs, 'each run fetched the page once');
      assert.equal(hook.got.length, 1, 'no webhook for runs that found no change');
      const balance = (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
      assert.equal(balance, 1000 - 10 * runs);
      const usage = await s.call('GET', '/api/v2/usage?objectId=scrape_page&limit=100', { key });
      assert.equal(usage.status, 200);

      const listed = await s.call('GET', '/api/v2/monitors', { key });
      assert.deepEqual(
        listed.json.data.map((m: { id: string }) => m.id),
        [id],
      );
      assert.equal((await s.call('DELETE', `/api/v2/monitors/${id}`, { key })).status, 200);
      assert.equal((await get()).status, 404);
    });

    it('records a run the key cannot pay for as a failed run, charging nothing', async () => {
      const poor = await s.createKey({ credits: 5 });
      const created = await s.call('POST', '/api/v2/monitors', { key: poor.key, body: { url, interval: INTERVAL, options: { renderJs: false } } });
      assert.equal(created.status, 201);
      const id = created.json.data.id as string;
      const run = await until('a failed run', async () => {
        const d = (await s.call('GET', `/api/v2/monitors/${id}`, { key: poor.key })).json.data;
        return d.runs >= 1 ? d : undefined;
      });
      assert.equal(run.lastRun.error.code, 'INSUFFICIENT_CREDITS');
      assert.equal(run.changes, 0);
      await s.call('DELETE', `/api/v2/monitors/${id}`, { key: poor.key });
      assert.equal((await s.call('GET', '/api/v2/balance', { key: poor.key })).json.data.credits, 5);
    });
  });
}

describe('monitors on two instances sharing PostgreSQL', () => {
  let b: Backend;
  let a: TestServer;
  let c: TestServer;
  let site: ReturnType<typeof watchedSite>;

  before(async () => {
    b = await postgresBackend();
    site = watchedSite();
    await new Promise<void>((r) => site.server.listen(0, '127.0.0.1', r));
    a = await startServer({ env: { ...ENV, ...b.env }, serviceConfig: pluginsConfig(['web']) });
    c = await startServer({ env: { ...ENV, ...b.env }, serviceConfig: pluginsConfig(['web']) });
  });
  after(async () => {
    await a?.close();
    await c?.close();
    site?.server.close();
    await b?.dispose();
  });

  it('runs every tick once: page fetches, runs and charges agree', async () => {
    const { key } = await a.createKey({ credits: 10_000 });
    const url = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}/watched`;
    const created = await a.call('POST', '/api/v2/monitors', { key, body: { url, interval: INTERVAL, options: { renderJs: false } } });
    assert.equal(created.status, 201);
    const id = created.json.data.id as string;
    const started = Date.now();
    await until('five runs', async () => (((await c.call('GET', `/api/v2/monitors/${id}`, { key })).json.data.runs as number) >= 5 ? true : undefined));
    await c.call('PATCH', `/api/v2/monitors/${id}`, { key, body: { status: 'paused' } });
    const elapsed = Date.now() - started;
    await new Promise((r) => setTimeout(r, 2 * INTERVAL));
    const runs = (await a.call('GET', `/api/v2/monitors/${id}`, { key })).json.data.runs as number;
    assert.equal(site.state.hits, runs, 'no tick ran twice');
    assert.ok(runs <= Math.ceil(elapsed / INTERVAL) + 2, `${runs} runs in ${elapsed} ms at one per ${INTERVAL} ms`);
    assert.equal((await a.call('GET', '/api/v2/balance', { key })).json.data.credits, 10_000 - 10 * runs);
  });
});
