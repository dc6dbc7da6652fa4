/** Graceful shutdown: requests in flight finish and are charged once; nothing is lost. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import { startServer, type TestServer } from './helpers/server.js';
import { postgresBackend, type Backend } from './helpers/storage.js';
import { echoOnlyConfig } from './fixtures/test-plugins.js';

const slowBody = (delayMs: number) => JSON.stringify({ type: 'capability', id: 'test_echo', input: { text: 'slow', delayMs } });

/** Polls until `check` holds (the usage log is written in batches). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`never happened: ${what}`);
}

/**
 * Waits until the key's slow call is running: its credits are reserved before the provider runs
 * and released when it ends, so a reservation means the call is in flight (rather than guessing
 * how long reaching the provider takes on a loaded machine).
 */
const inFlight = (s: TestServer, keyId: string) => eventually(async () => (await s.admin('GET', `/keys/${keyId}`)).json.reserved > 0, 'the slow call is in flight');

/**
 * A client that hangs up mid-call is not charged and its call is logged as 499: on a server that
 * a later test of its describe block stops (keys are separate, so one server serves both).
 */
async function hangUpNotCharged(s: TestServer): Promise<void> {
  const { id, key } = await s.createKey({ credits: 100 });
  const ctl = new AbortController();
  const call = fetch(s.url + '/api/v2/run', { method: 'POST', signal: ctl.signal, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: slowBody(1500) });
  await inFlight(s, id);
  ctl.abort();
  await assert.rejects(call);
  await eventually(async () => (await s.call('GET', '/api/v2/usage?objectId=test_echo', { key })).json.data.items.length === 1, 'a usage row for the abandoned call');
  const row = (await s.call('GET', '/api/v2/usage?objectId=test_echo', { key })).json.data.items[0];
  assert.equal(row.status, 499);
  assert.equal(row.code, 'CLIENT_CLOSED');
  assert.equal(row.credits, 0);
  const bal = (await s.call('GET', '/api/v2/balance', { key })).json.data;
  assert.deepEqual([bal.credits, bal.reserved], [100, 0]);
}

describe('graceful shutdown', () => {
  describe('on the embedded store', () => {
    let s: TestServer;
    before(async () => {
      s = await startServer({ serviceConfig: echoOnlyConfig() });
    });
    // The last test restarts the server on the same DATA_DIR, kept when the first one stopped.
    after(async () => {
      await s?.close().catch(() => {});
      if (s) await rm(s.dataDir, { recursive: true, force: true });
    });

    it('on embedded: a client that hangs up mid-call is not charged and its call is logged as 499', () => hangUpNotCharged(s));

    it('finishes a request in flight, persists its charge, then refuses new work', async () => {
      const dataDir = s.dataDir;
      const { id, key } = await s.createKey({ credits: 100 });
      const slow = s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', input: { text: 'slow', delayMs: 1200 } } });
      await inFlight(s, id);
      const url = s.url;
      // Draining starts as close() is called (stop() sets it before its first wait).
      const closing = s.close({ keepData: true });
      // A new connection while draining is answered, not refused (issue 18 finding 9).
      const late = await fetch(url + '/api/v2/balance', { headers: { authorization: `Bearer ${key}` } }).then(async (r) => [r.status, (await r.json()).code, r.headers.get('connection')], (e) => ['refused', String(e)]);
      assert.deepEqual(late, [503, 'SHUTTING_DOWN', 'close']);
      const done = await slow;
      assert.equal(done.status, 200);
      assert.equal(done.json.data.echo, 'slow');
      await closing;
      s = await startServer({ serviceConfig: echoOnlyConfig(), dataDir });
      const bal = await s.call('GET', '/api/v2/balance', { key });
      assert.equal(bal.json.data.credits, 90);
      const usage = await s.call('GET', '/api/v2/usage?objectId=test_echo', { key });
      assert.equal(usage.json.data.items.length, 1);
      assert.equal(usage.json.data.items[0].status, 200);
    });
  });

  // The test's own timeout is far below the grace period: a stop that waits out the grace for a
  // connection carrying no request (one a client opened and sent nothing on, as undici does after
  // a hang-up) fails it instead of passing ten minutes later.
  it('with SHUTDOWN_DELAY_MS and nothing in flight, the listener stays open for the delay: /readyz and new calls are 503; a connection with no request does not hold the stop', { timeout: 60_000 }, async () => {
    const s = await startServer({ serviceConfig: echoOnlyConfig(), env: { SHUTDOWN_DELAY_MS: '600', SHUTDOWN_GRACE_MS: '600000' } });
    const { key } = await s.createKey({ credits: 100 });
    const { hostname, port } = new URL(s.url);
    const silent = net.connect(Number(port), hostname);
    await new Promise<void>((r) => silent.once('connect', () => r()));
    const silentClosed = new Promise<void>((r) => silent.once('close', () => r()));
    // Draining starts as close() is called; the listener stays open for the delay.
    const closing = s.close();
    const ready = await fetch(s.url + '/readyz').then((r) => r.status, () => 'refused');
    const run = await fetch(s.url + '/api/v1/scrape', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"url":"https://example.com"}' }).then(
      async (r) => [r.status, await r.json()],
      () => ['refused'],
    );
    await closing;
    await silentClosed;
    assert.equal(ready, 503);
    assert.deepEqual(run, [503, { error: 'The service is shutting down. Please retry.' }]);
    const after = await fetch(s.url + '/healthz').then((r) => r.status, () => 'refused');
    assert.equal(after, 'refused', 'once drained the instance stops listening');
  });

  it('a request arriving on an open connection while closing gets the lane\'s 503 SHUTTING_DOWN', async () => {
    const s = await startServer({ serviceConfig: echoOnlyConfig() });
    const { id, key } = await s.createKey({ credits: 100 });
    const { hostname, port } = new URL(s.url);
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    const ended = new Promise<void>((r) => socket.on('close', () => r()));
    const body = JSON.stringify({ type: 'capability', id: 'test_echo', input: { text: 'slow', delayMs: 800 } });
    socket.write(`POST /api/v2/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await inFlight(s, id);
    const closing = s.close();
    // Pipelined behind the slow run, on the connection that is still open.
    socket.write(`GET /api/v2/balance HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    await ended;
    await closing;
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    assert.match(first ?? '', /^HTTP\/1\.1 200 /);
    assert.match(second ?? '', /^HTTP\/1\.1 503 /, received);
    assert.match(second!, /x-request-id: \S+/i);
    const envelope = JSON.parse(second!.slice(second!.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, ''));
    assert.deepEqual({ ...envelope, requestId: typeof envelope.requestId }, { success: false, requestId: 'string', error: 'The service is shutting down. Please retry.', code: 'SHUTTING_DOWN' });
  });

  describe('on PostgreSQL', () => {
    let backend: Backend;
    let s: TestServer;
    before(async () => {
      backend = await postgresBackend();
      // The grace period only matters to the last test, which stops this server.
      s = await startServer({ env: { ...backend.env, SHUTDOWN_GRACE_MS: '300' }, serviceConfig: echoOnlyConfig() });
    });
    after(async () => {
      await s?.close();
      await backend?.dispose();
    });

    it('on postgres+redis: a client that hangs up mid-call is not charged and its call is logged as 499', () => hangUpNotCharged(s));

    it('a call cut off when the grace period ends releases its reservation before the instance stops', async () => {
      const { id, key } = await s.createKey({ credits: 100 });
      const cut = fetch(s.url + '/api/v2/run', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: slowBody(5000) }).then(
        (r) => `answered ${r.status}`,
        () => 'cut',
      );
      await inFlight(s, id);
      await s.close();
      assert.equal(await cut, 'cut', 'the connection is closed once the grace period is over');
      s = await startServer({ env: backend.env, serviceConfig: echoOnlyConfig() });
      const bal = (await s.call('GET', '/api/v2/balance', { key })).json.data;
      assert.deepEqual([bal.credits, bal.reserved], [100, 0]);
      const rows = (await s.call('GET', '/api/v2/usage?objectId=test_echo', { key })).json.data.items;
      assert.deepEqual(rows.map((r: { status: number; credits: number }) => [r.status, r.credits]), [[499, 0]]);
    });
  });
});
