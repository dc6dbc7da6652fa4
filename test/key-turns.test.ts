/**
 * Turns per key on the serving thread (issue 24, bench:abuse's made-up ids): a key with a burst
 * of requests in flight gets one of them worked on per pass of the event loop, so another key's
 * single call that arrives with the burst is answered after about one of them, not after all.
 * Through the real server, over raw sockets: every request is written in one go, the burst's
 * first, so without turns the server reads and answers them in that order.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startServer, type TestServer } from './helpers/server.js';

/** A connected socket to the server. */
function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** An HTTP/1.1 request's bytes. */
function requestBytes(method: string, path: string, key: string, body?: unknown): string {
  const text = body === undefined ? '' : JSON.stringify(body);
  const head = [`${method} ${path} HTTP/1.1`, 'Host: localhost', `Authorization: Bearer ${key}`];
  if (body !== undefined) head.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(text)}`);
  return head.join('\r\n') + '\r\n\r\n' + text;
}

/** Resolves with the socket's next whole answer once its body is complete (Content-Length). */
function answer(socket: Socket): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (b: Buffer) => {
      got += b.toString('utf8');
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(got.slice(0, end))?.[1] ?? 0);
      if (Buffer.byteLength(got.slice(end + 4)) < length) return;
      socket.off('data', onData).off('error', reject);
      resolve({ status: Number(got.slice(9, 12)), headers: got.slice(0, end), body: got.slice(end + 4) });
    };
    socket.on('data', onData).once('error', reject);
  });
}

/**
 * A socket the server has accepted and reads from: one `/healthz` call answered on it first (a
 * connection not yet accepted when its request arrives is read a pass later than the others).
 */
async function ready(url: string): Promise<Socket> {
  const socket = await open(url);
  const first = answer(socket);
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  assert.equal((await first).status, 200);
  return socket;
}

describe('turns per key on the serving thread', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());

  for (const burst of [
    { name: 'made-up ids on /api/v2/run (404)', method: 'POST', path: '/api/v2/run', body: (i: number) => ({ type: 'capability', id: `made_up_${i}`, input: {} }), status: 404, limit: 1_000_000 },
    { name: 'calls past the rate limit (429)', method: 'POST', path: '/api/v2/run', body: (i: number) => ({ type: 'capability', id: `made_up_${i}`, input: {} }), status: 429, limit: 1 },
    { name: 'balance calls (200)', method: 'GET', path: '/api/v2/balance', body: () => undefined, status: 200, limit: 1_000_000 },
  ]) {
    it(`another key's call sent after a burst of 12 ${burst.name} is answered before most of the burst`, async () => {
      const attacker = (await s.createKey({ name: 'burst', rateLimitPerMinute: burst.limit })).key;
      const other = (await s.createKey({ name: 'other' })).key;
      // Each key's first call looks its token up in the database (the burst's would wait for that);
      // with a limit of one a minute, the burst's key has used its call here.
      for (const key of [attacker, other]) await s.call('GET', '/api/v2/balance', { key });
      const burstSockets = await Promise.all(Array.from({ length: 12 }, () => ready(s.url)));
      const otherSocket = await ready(s.url);
      const order: string[] = [];
      const answers = [...burstSockets.map((socket, i) => answer(socket).then((a) => (order.push(`burst ${i}`), a))), answer(otherSocket).then((a) => (order.push('other'), a))];
      // All in one go, the burst first: the server finds them all readable at once, in this order.
      burstSockets.forEach((socket, i) => socket.write(requestBytes(burst.method, burst.path, attacker, burst.body(i))));
      otherSocket.write(requestBytes('GET', '/api/v2/balance', other));
      const got = await Promise.all(answers);
      for (const socket of [...burstSockets, otherSocket]) socket.destroy();
      const otherAnswer = got.at(-1)!;
      assert.equal(otherAnswer.status, 200, otherAnswer.body);
      assert.equal(JSON.parse(otherAnswer.body).object, 'balance');
      // The burst is still answered in full, each as it would be alone.
      assert.deepEqual(got.slice(0, -1).map((a) => a.status), Array(12).fill(burst.status));
      // At most the burst's first call (the one whose turn it was) and one more before it.
      const before = order.indexOf('other');
      assert.ok(before <= 2, `the other key's call was answered after ${before} of the burst's 12: ${order.join(', ')}`);
    });
  }
});
