/**
 * A monitor deleted while its run is still fetching the page, on both stores: the run ends after
 * the DELETE removed the monitor and its snapshot history (tag `monitor:<id>`), and its snapshot
 * write must not bring that history back. What the key sees: a change-tracking scrape of the same
 * page under the same tag reads `new` (nothing kept), as it does for a monitor deleted at rest,
 * while under a live monitor's tag the same scrape reads `same` (the history is there to be read).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { until } from './helpers/until.js';

// Runs are due at creation (the baseline) and not again within a test: the interval is long.
const ENV = { ALLOW_PRIVATE_NETWORK: 'true', MONITOR_MIN_INTERVAL_MS: '1000', MONITOR_POLL_MS: '100' };
const INTERVAL = 3_600_000;

/** A page that answers at once, except under /held/, whose answers wait until `release`. */
function heldSite() {
  const waiting: http.ServerResponse[] = [];
  let holding = true;
  const answer = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Watched</title><p>The same text every time.</p>');
  const server = http.createServer((req, res) => {
    if (holding && req.url!.startsWith('/held/')) waiting.push(res);
    else answer(res);
  });
  return {
    server,
    waiting,
    release() {
      holding = false;
      for (const res of waiting.splice(0)) answer(res);
    },
  };
}

for (const backend of BACKENDS) {
  describe(`a monitor deleted during its run (${backend.name})`, () => {
    let b: Backend;
    let s: TestServer;
    let site: ReturnType<typeof heldSite>;
    let origin = '';

    before(async () => {
      b = await backend.make();
      site = heldSite();
      await new Promise<void>((r) => site.server.listen(0, '127.0.0.1', r));
      origin = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
      s = await startServer({ env: { ...ENV, ...b.env }, serviceConfig: pluginsConfig(['web']) });
    });
    after(async () => {
      site?.release();
      await s?.close();
      site?.server.close();
      await b?.dispose();
    });

    /** A change-tracking scrape of `url` under `tag` by `key`: its changeStatus. */
    const track = async (key: string, url: string, tag: string) => {
      const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input: { url, renderJs: false, formats: ['changeTracking'], tag } } });
      assert.equal(r.status, 200, r.text);
      return r.json.data.changeTracking.changeStatus as string;
    };
    /** The key's scrape_page usage rows (a monitor run's row is written once the run has ended). */
    const scrapes = async (key: string) => (await s.call('GET', '/api/v2/usage?objectId=scrape_page&limit=100', { key })).json.data.items as unknown[];

    it("a live monitor's history is read under its tag (the check below can see a kept snapshot)", async () => {
      const { key } = await s.createKey({ credits: 1000 });
      const url = `${origin}/live`;
      const created = await s.call('POST', '/api/v2/monitors', { key, body: { url, interval: INTERVAL, options: { renderJs: false } } });
      assert.equal(created.status, 201, created.text);
      const id = created.json.data.id as string;
      const baseline = await until(async () => {
        const d = (await s.call('GET', `/api/v2/monitors/${id}`, { key })).json.data;
        return d.runs >= 1 ? d : undefined;
      }, 'the baseline run', 30_000);
      assert.equal(baseline.lastRun.changeStatus, 'new');
      assert.equal(await track(key, url, `monitor:${id}`), 'same');
      // Deleted at rest, its history goes with it.
      assert.equal((await s.call('DELETE', `/api/v2/monitors/${id}`, { key })).status, 200);
      assert.equal(await track(key, url, `monitor:${id}`), 'new');
    });

    it('a run that ends after the DELETE leaves no snapshot behind: the same page under its tag reads new', async () => {
      const { key } = await s.createKey({ credits: 1000 });
      const url = `${origin}/held/${backend.name}`;
      const created = await s.call('POST', '/api/v2/monitors', { key, body: { url, interval: INTERVAL, options: { renderJs: false } } });
      assert.equal(created.status, 201, created.text);
      const id = created.json.data.id as string;
      // The baseline run is fetching the page, which does not answer yet.
      await until(() => site.waiting.length > 0, 'the run to fetch the page', 30_000);
      const deleted = await s.call('DELETE', `/api/v2/monitors/${id}`, { key });
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal((await s.call('GET', `/api/v2/monitors/${id}`, { key })).status, 404);
      site.release();
      // The run's usage row is written after its change tracking (and its snapshot write) ended.
      await until(async () => (await scrapes(key)).length > 0, "the held run's end", 30_000);
      assert.equal(await track(key, url, `monitor:${id}`), 'new', "the deleted monitor's snapshot came back");
    });
  });
}
