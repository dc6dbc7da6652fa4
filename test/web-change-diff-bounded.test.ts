/**
 * Issue 24 "nothing hostile on the event loop", for issue 27's change tracking: one key controls
 * both versions of its own page, so the diff of two large, different versions must neither freeze
 * the instance for other callers nor run unbounded. Through the real server on PostgreSQL, whose
 * connection runs through a relay in this test: the relay sees the service read the page's last
 * snapshot (and write the new one), and at each of those answers sends a `/healthz` probe. The
 * diff runs right after one of them; a probe answered before the service's next message to the
 * store was answered while the diff was running. On a serving thread busy with the diff no probe
 * can be: the service's next message goes out as the diff ends, before a new request is read (on
 * c8a5545-era code the diff followed the write and both probes lose). No clock is read: only the
 * order of events.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, request, type TestServer } from './helpers/server.js';
import { postgresBackend, type Backend } from './helpers/storage.js';

/** What the relay and the probes saw, in order. */
type Seen = { what: 'fired' | 'answered'; probe: number } | { what: 'to-store' };

/** PostgreSQL's ReadyForQuery message: the end of the answer to one query (status idle). */
const READY = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

/**
 * A TCP relay to PostgreSQL that, while `armed`, calls `onSnapshotAnswer` after handing the
 * service the complete answer to a `page_snapshots` read or write, and records each message the
 * service sends to the store.
 */
function storeRelay(target: { host: string; port: number }, seen: Seen[], onSnapshotAnswer: () => void) {
  const relay = { armed: false, server: net.createServer() };
  relay.server.on('connection', (client) => {
    const upstream = net.connect(target.port, target.host);
    let pending = false;
    client.on('data', (d) => {
      if (relay.armed) {
        seen.push({ what: 'to-store' });
        if (d.includes('page_snapshots')) pending = true;
      }
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      client.write(d);
      if (relay.armed && pending && d.includes(READY)) {
        pending = false;
        onSnapshotAnswer();
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return relay;
}

/** A page of `lines` distinct lines sharing a long start (every comparison of two lines reads it). */
function bigPage(tag: string, lines: number): string {
  const start = 'x'.repeat(1000);
  return Array.from({ length: lines }, (_, i) => `${start} ${tag} ${i}`).join('\n');
}

describe('change-tracking diff of two large versions, on PostgreSQL', () => {
  let backend: Backend;
  let s: TestServer;
  let site: http.Server;
  let base = '';
  let page = bigPage('first', 2000);
  const seen: Seen[] = [];
  let probes = 0;
  let relay: ReturnType<typeof storeRelay>;

  before(async () => {
    site = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(page);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    backend = await postgresBackend();
    const db = new URL(backend.env.DATABASE_URL!);
    relay = storeRelay({ host: db.hostname, port: Number(db.port || 5432) }, seen, () => {
      const probe = ++probes;
      seen.push({ what: 'fired', probe });
      void request(`${s.url}/healthz`, 'GET').then((r) => {
        assert.equal(r.status, 200);
        seen.push({ what: 'answered', probe });
      });
    });
    await new Promise<void>((r) => relay.server.listen(0, '127.0.0.1', r));
    db.host = `127.0.0.1:${(relay.server.address() as AddressInfo).port}`;
    s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ...backend.env, DATABASE_URL: db.toString(), ALLOW_PRIVATE_NETWORK: 'true' } });
  });
  after(async () => {
    await s?.close();
    relay?.server.close();
    site?.closeAllConnections();
    site?.close();
    await backend?.dispose();
  });

  it('answers another call while the diff runs, and the answer has a (coarse, said so) diff', async () => {
    const { key } = await s.createKey({ credits: 1000 });
    const scrape = () => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input: { url: `${base}/page`, renderJs: false, formats: ['changeTracking'] } } });
    const first = await scrape();
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.data.changeTracking.changeStatus, 'new');

    page = bigPage('second', 2000);
    relay.armed = true;
    const second = await scrape();
    relay.armed = false;
    assert.equal(second.status, 200, second.text);

    // Every probe is answered in the end; the question is when.
    await new Promise<void>((resolve) => {
      const check = () => (seen.filter((e) => e.what === 'answered').length === probes ? resolve() : setImmediate(check));
      check();
    });
    assert.ok(probes >= 2, `probes at the snapshot's read and write (${probes})`);
    const answeredDuringWork = [...Array(probes).keys()].map((i) => i + 1).some((probe) => {
      const fired = seen.findIndex((e) => e.what === 'fired' && e.probe === probe);
      const answered = seen.findIndex((e) => e.what === 'answered' && e.probe === probe);
      const nextToStore = seen.findIndex((e, i) => i > fired && e.what === 'to-store');
      return nextToStore === -1 || answered < nextToStore;
    });
    assert.ok(answeredDuringWork, `a /healthz sent as the snapshot came back was answered before the service's next message to the store: ${JSON.stringify(seen.slice(0, 60))}`);

    const tracking = second.json.data.changeTracking;
    assert.equal(tracking.changeStatus, 'changed');
    const diff = (tracking.diff as string).split('\n');
    assert.deepEqual(diff.slice(0, 3), ['--- previous', '+++ current', '@@ -1,2000 +1,2000 @@']);
    // Aligning 2,000 distinct lines against 2,000 others is past the bound: one block each way, and a note saying so.
    assert.match(diff.at(-1)!, /^\\ Too many changes to align line by line/);
  });
});
