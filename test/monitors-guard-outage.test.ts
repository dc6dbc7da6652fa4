/**
 * Change monitors (issue 27) and the SSRF guard, and a watched page's outage: a monitor of a
 * private or metadata address, or with a webhook there, is refused at creation (and such a
 * webhook at PATCH) with the guard's own 400, unless ALLOW_HOSTS opens the host, as for a scrape;
 * a page that answers 503 for a while fails those runs (recorded, free, no webhook) and, back as
 * it was, reads `same`: no `monitor.changed` for an outage.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { until } from './helpers/until.js';

const INTERVAL = 1000;
// No ALLOW_PRIVATE_NETWORK: only the loopback test sites are opened, by name.
const ENV = { ALLOW_HOSTS: '127.0.0.1', MONITOR_MIN_INTERVAL_MS: String(INTERVAL), MONITOR_POLL_MS: '150' };

describe('monitors: the SSRF guard at creation, and an outage of the page', () => {
  let s: TestServer;
  let site: http.Server;
  let hook: http.Server;
  let origin = '';
  let hookUrl = '';
  const page = { status: 200 };
  /** Answers of the outage test's page, by status. */
  const served = new Map<number, number>();
  const got: string[] = [];

  before(async () => {
    site = http.createServer((req, res) => {
      if (req.url === '/watched') served.set(page.status, (served.get(page.status) ?? 0) + 1);
      res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8' }).end(page.status === 200 ? '<title>Watched</title><p>Steady text.</p>' : '<p>Service Unavailable</p>');
    });
    hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    s = await startServer({ env: ENV, serviceConfig: pluginsConfig(['web']) });
  });
  after(async () => {
    await s?.close();
    site?.closeAllConnections();
    site?.close();
    hook?.close();
  });

  it('a private or metadata page or webhook is refused at creation and PATCH with the guard’s 400', async () => {
    const { key } = await s.createKey({ credits: 1000 });
    const create = (url: string, webhook = hookUrl) => s.call('POST', '/api/v2/monitors', { key, body: { url, interval: 300_000, webhook: { url: webhook } } });
    const refused = [
      [await create('http://10.0.0.5/'), 'URL not allowed: 10.0.0.5 resolves to a private address, which cannot be fetched.'],
      [await create('http://169.254.169.254/latest/meta-data/'), 'URL not allowed: 169.254.169.254 resolves to a link-local address, which cannot be fetched.'],
      [await create(`${origin}/page`, 'http://10.0.0.5/hook'), 'URL not allowed: 10.0.0.5 resolves to a private address, which cannot be fetched.'],
    ] as const;
    for (const [res, error] of refused) assert.deepEqual([res.status, res.json.error], [400, error]);
    assert.deepEqual((await s.call('GET', '/api/v2/monitors', { key })).json.data, [], 'none made');

    // The host ALLOW_HOSTS opens is accepted, as a scrape of it would be; a PATCH to a private webhook is not.
    const made = await create(`${origin}/page`);
    assert.equal(made.status, 201, made.text);
    const id = made.json.data.id as string;
    const patched = await s.call('PATCH', `/api/v2/monitors/${id}`, { key, body: { webhook: { url: 'http://169.254.169.254/hook' } } });
    assert.deepEqual([patched.status, patched.json.error], [400, 'URL not allowed: 169.254.169.254 resolves to a link-local address, which cannot be fetched.']);
    assert.equal((await s.call('GET', `/api/v2/monitors/${id}`, { key })).json.data.webhook.url, hookUrl);
    await s.call('DELETE', `/api/v2/monitors/${id}`, { key });
  });

  it('an outage (503) fails its runs, free and silent; the page back as it was is the same', async () => {
    const { key } = await s.createKey({ credits: 1000 });
    const created = await s.call('POST', '/api/v2/monitors', { key, body: { url: `${origin}/watched`, interval: INTERVAL, options: { renderJs: false }, webhook: { url: hookUrl } } });
    assert.equal(created.status, 201, created.text);
    const id = created.json.data.id as string;
    const get = async () => (await s.call('GET', `/api/v2/monitors/${id}`, { key })).json.data;
    await until(async () => ((await get()).lastRun?.changeStatus === 'new' ? true : undefined), 'the baseline run', 30_000);

    page.status = 503;
    const failed = await until(async () => {
      const d = await get();
      return d.lastRun?.error ? d : undefined;
    }, 'a run during the outage', 30_000);
    assert.equal(failed.lastRun.error.code, 'UPSTREAM_ERROR');
    assert.equal(failed.lastRun.error.message, `Failed to track changes of ${origin}/watched: the page answered 503; the last snapshot is kept.`);
    await until(async () => ((await get()).runs >= failed.runs + 1 ? true : undefined), 'another run during the outage', 30_000);

    page.status = 200;
    const back = await until(async () => {
      const d = await get();
      return d.lastRun?.changeStatus ? d : undefined;
    }, 'a run on the page back', 30_000);
    assert.equal(back.lastRun.changeStatus, 'same');
    assert.equal(back.changes, 0);

    // Every run has fetched the page once; only those that found it up were paid for.
    await s.call('PATCH', `/api/v2/monitors/${id}`, { key, body: { status: 'paused' } });
    const runs = await until(async () => {
      const d = await get();
      const fetched = [...served.values()].reduce((a, b) => a + b, 0);
      return d.runs === fetched ? d.runs : undefined;
    }, 'the last run to finish', 30_000);
    assert.ok(runs >= 4);
    const credits = (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
    assert.equal(1000 - credits, 10 * served.get(200)!);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(got, [], 'no webhook for an outage');
  });
});
