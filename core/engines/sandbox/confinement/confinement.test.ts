/**
 * Unit tests of the confinement room's building blocks (issue 6): the uid pool's queue and 429,
 * and the egress proxy's refusals and tunnels.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { UidPool } from './uid-pool.js';
import { startEgressProxy } from './egress-proxy.js';
import { BusyError } from '../../../errors.js';

test('UidPool hands out distinct uids, queues, and answers Busy past the queue', async () => {
  const pool = new UidPool(2, 61_000, 1);
  const a = await pool.acquire();
  const b = await pool.acquire();
  assert.deepEqual([a.uid, b.uid].sort(), [61_000, 61_001]);
  const waiting = pool.acquire();
  await assert.rejects(pool.acquire(), BusyError);
  a.release();
  const c = await waiting;
  assert.equal(c.uid, a.uid);
  c.release();
  b.release();
  pool.close();
});

test('egress proxy refuses loopback, metadata, other ports and plain requests', async () => {
  let hits = 0;
  const target = http.createServer((_q, r) => {
    hits++;
    r.end('x');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
  const port = (target.address() as AddressInfo).port;
  const dir = await mkdtemp(join(tmpdir(), 'egress-'));
  const proxy = await startEgressProxy(join(dir, 'p.sock'), null, { allowPrivate: false, allowHosts: new Set(), packageHosts: new Set() });
  const ask = (head: string) =>
    new Promise<string>((resolve) => {
      const s = net.connect(proxy.socketPath);
      let got = '';
      s.on('data', (d) => (got += d.toString()));
      s.on('close', () => resolve(got));
      s.write(head);
    });
  try {
    assert.match(await ask(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`), /^HTTP\/1\.1 403 Port not allowed/);
    assert.match(await ask('CONNECT 127.0.0.1:443 HTTP/1.1\r\n\r\n'), /^HTTP\/1\.1 403 Destination not allowed/);
    assert.match(await ask('CONNECT localhost:80 HTTP/1.1\r\n\r\n'), /^HTTP\/1\.1 403 Destination not allowed/);
    assert.match(await ask('CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n'), /^HTTP\/1\.1 403 Destination not allowed/);
    assert.match(await ask('CONNECT [::1]:443 HTTP/1.1\r\n\r\n'), /^HTTP\/1\.1 403 Destination not allowed/);
    assert.match(await ask(`GET http://127.0.0.1:${port}/ HTTP/1.1\r\nHost: x\r\n\r\n`), /^HTTP\/1\.1 405/);
    assert.equal(hits, 0);
  } finally {
    await proxy.close();
    await new Promise((r) => target.close(r));
    await rm(dir, { recursive: true, force: true });
  }
});

test('egress proxy tunnels to a host the operator allows', async () => {
  const target = net.createServer((s) => s.end('tunnelled'));
  await new Promise<void>((r) => target.listen(80, '127.0.0.1', () => r()).on('error', () => r()));
  if (!target.listening) return; // port 80 taken on this machine: nothing to prove here
  const dir = await mkdtemp(join(tmpdir(), 'egress-'));
  const proxy = await startEgressProxy(join(dir, 'p.sock'), null, { allowPrivate: false, allowHosts: new Set(), packageHosts: new Set(['localhost']) });
  try {
    const got = await new Promise<string>((resolve) => {
      const s = net.connect(proxy.socketPath);
      let buf = '';
      s.on('data', (d) => (buf += d.toString()));
      s.on('close', () => resolve(buf));
      s.write('CONNECT localhost:80 HTTP/1.1\r\n\r\n');
    });
    assert.equal(got, 'HTTP/1.1 200 Connection Established\r\n\r\ntunnelled');
  } finally {
    await proxy.close();
    await new Promise((r) => target.close(r));
    await rm(dir, { recursive: true, force: true });
  }
});
