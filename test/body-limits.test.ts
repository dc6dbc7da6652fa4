/**
 * Request-body limits through the real server (issue 18 finding 3): 1 MB by default, large only
 * where files travel, and a process-wide budget of body bytes held at once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startServer, type TestServer } from './helpers/server.js';
import { echoOnlyConfig } from './fixtures/test-plugins.js';

/** Sends raw HTTP/1.1 bytes and resolves with the status line's code once the server answers. */
function rawStatus(url: string, head: string, body: Buffer | string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.on('data', (d) => {
      received += d.toString();
      const end = received.indexOf('\r\n\r\n');
      if (end > 0 && /content-length: (\d+)/i.test(received)) {
        const len = Number(/content-length: (\d+)/i.exec(received)![1]);
        if (received.length >= end + 4 + len) {
          socket.destroy();
          resolve({ status: Number(received.slice(9, 12)), text: received.slice(end + 4) });
        }
      }
    });
    socket.on('error', reject);
    socket.write(head);
    socket.write(body);
  });
}

describe('request-body limits', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer({ serviceConfig: echoOnlyConfig(), env: { BODY_BYTES_IN_FLIGHT_MAX: String(3 * 1024 * 1024) } });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(() => s.close());

  it('a 2 MB body to /api/v1/scrape is a 413 naming the limit, and costs nothing', async () => {
    const res = await s.call('POST', '/api/v1/scrape', { key, body: { url: 'https://example.com', pad: 'x'.repeat(2 * 1024 * 1024) } });
    assert.equal(res.status, 413);
    assert.deepEqual(res.json, { error: 'Request body is too large: this route accepts at most 1048576 bytes.' });
    const bal = await s.call('GET', '/api/v2/balance', { key });
    assert.equal(bal.json.data.credits, 1000);
  });

  it('a chunked body (no Content-Length) past the limit is a 413 too', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const { hostname, port } = new URL(s.url);
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => {});
    socket.write(`POST /api/v1/scrape HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`);
    socket.write(`1\r\n{\r\n`);
    for (let i = 0; i < 20 && !received; i++) {
      socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
    socket.destroy();
    assert.match(received, /^HTTP\/1\.1 413 /);
    assert.match(received, /accepts at most 1048576 bytes/);
  });

  it('/api/v2/run, where files travel, takes a 2 MB body', async () => {
    const text = 'y'.repeat(2 * 1024 * 1024);
    const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', input: { text } } });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.equal(res.json.data.echo.length, text.length);
  });

  it('past the process-wide budget a body is a free 429 BUSY with Retry-After, and fits again once the other is done', async () => {
    // One upload of 2.5 MB holds the budget (3 MB) while it arrives slowly...
    const big = Buffer.from(JSON.stringify({ type: 'capability', id: 'test_echo', input: { text: 'z'.repeat(2.5 * 1024 * 1024) } }));
    const { hostname, port } = new URL(s.url);
    const slow = net.connect(Number(port), hostname);
    let slowAnswer = '';
    slow.on('data', (d) => (slowAnswer += d.toString()));
    slow.write(`POST /api/v2/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\nConnection: close\r\n\r\n`);
    slow.write(big.subarray(0, 1024));
    await new Promise((r) => setTimeout(r, 200));
    // ...so a 1 MB body now does not fit.
    const body = JSON.stringify({ type: 'capability', id: 'test_echo', input: { text: 'w'.repeat(1024 * 1024) } });
    const refused = await rawStatus(s.url, `POST /api/v2/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`, body);
    assert.equal(refused.status, 429, refused.text);
    assert.equal(JSON.parse(refused.text).code, 'BUSY');
    const before = (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
    // The slow upload finishes and is served.
    const done = new Promise<void>((r) => slow.on('close', () => r()));
    slow.write(big.subarray(1024));
    await done;
    assert.match(slowAnswer, /^HTTP\/1\.1 200 /);
    // Its bytes are given back: the same 1 MB body is accepted now.
    const again = await s.call('POST', '/api/v2/run', { key, rawBody: body });
    assert.equal(again.status, 200, again.text.slice(0, 300));
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, before - 20);
  });
});
