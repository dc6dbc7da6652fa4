/** Unit tests of the guard proxy's socket handling: a browser that goes away mid-exchange. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { startGuardProxy } from './guard-proxy.js';
import { SsrfGuard, guardPolicyFromEnv } from '../http/guard.js';

const UPGRADE = 'GET http://example.com/ws HTTP/1.1\r\nHost: example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n';

test('a client that asks for an upgrade and is gone before the refusal raises nothing in the service', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guard-proxy-'));
  const proxy = await startGuardProxy(new SsrfGuard(guardPolicyFromEnv({})));
  const socketPath = path.join(dir, 'exit.sock');
  const stop = proxy.listenUnix(socketPath, null);
  try {
    // Over a Unix socket the request is still read after its sender closed, and the refusal
    // written to it then fails (EPIPE): the error the upgrade handler has to take.
    const gone = net.connect(socketPath);
    await new Promise((r) => gone.once('connect', r));
    gone.end(UPGRADE);
    gone.destroy();
    await new Promise((r) => gone.once('close', r));
    // The proxy's write fails on a later tick; an 'error' nobody listens to would fail this test.
    await new Promise((r) => setTimeout(r, 100));
    // Still serving: a new client is refused as before.
    const client = net.connect(socketPath);
    client.write(UPGRADE);
    const answer = await new Promise<string>((resolve) => {
      let got = '';
      client.on('data', (d) => (got += d)).on('close', () => resolve(got));
    });
    assert.match(answer, /^HTTP\/1\.1 403 /);
  } finally {
    stop();
    await proxy.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
