/**
 * Issue 24 "nothing hostile on the event loop", for issue 27's change tracking: one key controls
 * both versions of its own page, so the diff of two large, different versions must neither freeze
 * the instance for other callers nor run unbounded. Through the real server on PostgreSQL, whose
 * connection runs through a relay in this test: the relay sees the service read the page's last
 * snapshot and write the new one, and when the read's answer has been handed over it sends a
 * `/healthz` probe. The diff runs between the read and the write (change-tracking.ts), so a probe
 * answered before the write goes out was answered while the diff was running. On a serving thread
 * busy with the diff it cannot be: the write goes out as the diff ends, before a new request is
 * read. Only the probe at the read counts: one sent at the write's answer, after the diff, is
 * answered first whatever thread the diff ran on. No clock is read: only the order of events.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, request, type TestServer } from './helpers/server.js';
import { postgresBackend, type Backend } from './helpers/storage.js';
import { serveLoopback } from './helpers/loopback.js';

/** A message to the store that reads (`SELECT`) or writes (`INSERT`) a page snapshot. */
type SnapshotQuery = 'read' | 'write';

/** What the relay and the probes saw, in order. */
type Seen = { what: 'fired'; probe: number; at: SnapshotQuery } | { what: 'answered'; probe: number } | { what: 'to-store'; snapshot?: SnapshotQuery };

/** PostgreSQL's ReadyForQuery message: the end of the answer to one query (status idle). */
const READY = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

/** Which snapshot query a message to the store is, if any. */
function snapshotQuery(d: Buffer): SnapshotQuery | undefined {
  if (!d.includes('page_snapshots')) return undefined;
  if (d.includes('INSERT INTO page_snapshots')) return 'write';
  if (/SELECT [^\0]* FROM page_snapshots/.test(d.toString('latin1'))) return 'read';
  return undefined;
}

/**
 * A TCP relay to PostgreSQL that, while `armed`, calls `onSnapshotAnswer` after handing the
 * service the complete answer to a `page_snapshots` read or write, and records each message the
 * service sends to the store.
 */
function storeRelay(target: { host: string; port: number }, seen: Seen[], onSnapshotAnswer: (at: SnapshotQuery) => void) {
  const relay = { armed: false, server: net.createServer() };
  relay.server.on('connection', (client) => {
    const upstream = net.connect(target.port, target.host);
    let pending: SnapshotQuery | undefined;
    client.on('data', (d) => {
      if (relay.armed) {
        const snapshot = snapshotQuery(d);
        seen.push({ what: 'to-store', ...(snapshot ? { snapshot } : {}) });
        if (snapshot) pending = snapshot;
      }
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      client.write(d);
      if (relay.armed && pending && d.includes(READY)) {
        const at = pending;
        pending = undefined;
        onSnapshotAnswer(at);
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
  /** Each probe's answer; a probe that fails fails the test where they are awaited. */
  const answers: Promise<void>[] = [];
  let relay: ReturnType<typeof storeRelay>;

  before(async () => {
    ({ server: site, base } = await serveLoopback((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(page);
    }));
    backend = await postgresBackend();
    const db = new URL(backend.env.DATABASE_URL!);
    relay = storeRelay({ host: db.hostname, port: Number(db.port || 5432) }, seen, (at) => {
      const probe = ++probes;
      seen.push({ what: 'fired', probe, at });
      const answer = request(`${s.url}/healthz`, 'GET').then((r) => {
        assert.equal(r.status, 200);
        seen.push({ what: 'answered', probe });
      });
      // Handled here so a failure is not also an unhandled rejection before the test awaits it.
      answer.catch(() => undefined);
      answers.push(answer);
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

    // Every probe is answered in the end; the question is when. (A probe that failed used to
    // leave this wait spinning for ever, with no test reported: it now fails the test.)
    await Promise.all(answers);
    const atRead = seen.findIndex((e) => e.what === 'fired' && e.at === 'read');
    assert.ok(atRead >= 0, `a probe at the snapshot's read: ${JSON.stringify(seen.slice(0, 60))}`);
    const probe = (seen[atRead] as { probe: number }).probe;
    const answered = seen.findIndex((e) => e.what === 'answered' && e.probe === probe);
    const write = seen.findIndex((e, i) => i > atRead && e.what === 'to-store' && e.snapshot === 'write');
    assert.ok(write > atRead, `the new snapshot was written after the read: ${JSON.stringify(seen.slice(0, 60))}`);
    assert.ok(answered < write, `the /healthz sent as the snapshot's read came back was answered before the new snapshot was written, i.e. while the diff ran: ${JSON.stringify(seen.slice(0, 60))}`);

    const tracking = second.json.data.changeTracking;
    assert.equal(tracking.changeStatus, 'changed');
    const diff = (tracking.diff as string).split('\n');
    assert.deepEqual(diff.slice(0, 3), ['--- previous', '+++ current', '@@ -1,2000 +1,2000 @@']);
    // Aligning 2,000 distinct lines against 2,000 others is past the bound: one block each way, and a note saying so.
    assert.match(diff.at(-1)!, /^\\ Too many changes to align line by line/);
  });
});
