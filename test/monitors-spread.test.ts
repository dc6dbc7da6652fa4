/**
 * Issue 27 "runs are spread over instances and never run twice for one tick", through two real
 * servers sharing PostgreSQL and Redis, as the jobs tests run them. Which instance ran a tick is
 * told by the way its fetch left: each instance has its own operator proxy (`WEB_PROXY_URL`), as
 * instances in different places would, and each proxy here is a loopback stand-in that serves
 * the monitored pages itself and counts what it served.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServers, type TestServer } from './helpers/server.js';
import { postgresBackend, type Backend } from './helpers/storage.js';
import { until } from './helpers/until.js';

const INTERVAL = 1000;
const MONITORS = 6;
const ENV = { ALLOW_PRIVATE_NETWORK: 'true', MONITOR_MIN_INTERVAL_MS: String(INTERVAL), MONITOR_POLL_MS: '150' };

/** An operator proxy in front of one instance: serves every page it is asked for and counts them by URL. */
function exitProxy() {
  const served = new Map<string, number>();
  const server = http.createServer((req, res) => {
    served.set(req.url!, (served.get(req.url!) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<title>Watched</title><main><p>The page at ${req.url}, unchanged.</p></main>`);
  });
  return { server, served, total: () => [...served.values()].reduce((a, b) => a + b, 0) };
}


describe('monitors on two instances sharing PostgreSQL and Redis', () => {
  let b: Backend;
  let servers: TestServer[] = [];
  const exits = [exitProxy(), exitProxy()];

  before(async () => {
    b = await postgresBackend();
    for (const e of exits) await new Promise<void>((r) => e.server.listen(0, '127.0.0.1', r));
    servers = await startServers(
      exits.map((e) => ({ env: { ...ENV, ...b.env, WEB_PROXY_URL: `http://127.0.0.1:${(e.server.address() as AddressInfo).port}` }, serviceConfig: pluginsConfig(['web']) })),
    );
  });
  after(async () => {
    for (const s of servers) await s.close();
    for (const e of exits) {
      e.server.closeAllConnections();
      e.server.close();
    }
    await b?.dispose();
  });

  it('runs of several monitors land on both instances, each tick once: fetches, runs and charges agree', async () => {
    const [a, c] = servers as [TestServer, TestServer];
    const { key } = await a.createKey({ credits: 100_000 });
    // The pages are only ever served by the proxies; the address is one the guard accepts.
    const urls = Array.from({ length: MONITORS }, (_, i) => `http://127.0.0.1:9/watched/${i}`);
    const ids: string[] = [];
    const createdAt: number[] = [];
    for (const url of urls) {
      const created = await a.call('POST', '/api/v2/monitors', { key, body: { url, interval: INTERVAL, options: { renderJs: false } } });
      assert.equal(created.status, 201, created.text);
      ids.push(created.json.data.id as string);
      createdAt.push(Date.parse(created.json.data.createdAt));
    }
    // Until each instance has run some ticks (one at a time each: its run worker takes one run at a time).
    await until(async () => exits.every((e) => e.total() >= 3), 'runs on both instances');
    const pausedAt: number[] = [];
    for (const id of ids) {
      const paused = await c.call('PATCH', `/api/v2/monitors/${id}`, { key, body: { status: 'paused' } });
      assert.equal(paused.status, 200, paused.text);
      pausedAt.push(Date.parse(paused.json.data.updatedAt));
    }
    // A run already taken finishes after the pause: wait until the counts stop moving.
    let last = -1;
    await until(async () => {
      const runs = await Promise.all(ids.map(async (id) => (await a.call('GET', `/api/v2/monitors/${id}`, { key })).json.data.runs as number));
      const sum = runs.reduce((x, y) => x + y, 0);
      const settled = sum === last && sum === exits[0]!.total() + exits[1]!.total();
      last = sum;
      if (!settled) await new Promise((r) => setTimeout(r, 2 * INTERVAL));
      return settled;
    }, 'the last runs to finish');

    let total = 0;
    for (const [i, id] of ids.entries()) {
      const runs = (await c.call('GET', `/api/v2/monitors/${id}`, { key })).json.data.runs as number;
      const path = urls[i]!;
      const fetched = exits.map((e) => e.served.get(path) ?? 0);
      assert.equal(fetched[0]! + fetched[1]!, runs, `monitor ${i}: every run fetched its page once (${fetched.join(' + ')} fetches, ${runs} runs)`);
      // Its ticks are its creation time plus whole intervals, up to the pause (both times from the
      // store's clock; 1 ms for their rounding to ms): a tick run twice can show as more runs.
      // (Ticks skipped under load leave room here; the balance below catches that case too.)
      const ticks = Math.floor((pausedAt[i]! - createdAt[i]! + 1) / INTERVAL) + 1;
      assert.ok(runs <= ticks, `monitor ${i}: no tick ran twice (${runs} runs, ${ticks} ticks between its creation and its pause)`);
      total += runs;
    }
    assert.ok(exits.every((e) => e.total() > 0), `runs on both instances: ${exits.map((e) => e.total()).join(' and ')}`);
    assert.equal((await a.call('GET', '/api/v2/balance', { key })).json.data.credits, 100_000 - 10 * total, 'each run charged as one scrape (a call is named by its tick: a tick run twice would be charged once, short of its runs)');
  });
});
