/** Unit tests of the HTTP engine and its SSRF guard against servers on loopback. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { createHttpEngineWith } from './index.js';
import { blockedReason } from './ip-ranges.js';
import { ServiceError } from '../../errors.js';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteBudget } from './byte-budget.js';

let server: http.Server;
let base = '';
let secretHits = 0;

before(async () => {
  server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    switch (u.pathname) {
      case '/hello':
        res.setHeader('content-type', 'text/html; charset=utf-8');
        return res.end('<p>héllo</p>');
      case '/latin1':
        res.setHeader('content-type', 'text/html');
        return res.end(Buffer.from('<meta charset="iso-8859-1"><p>caf\xe9</p>', 'latin1'));
      case '/gzip':
        res.setHeader('content-encoding', 'gzip');
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        return res.end(zlib.gzipSync('zipped ✓'));
      case '/br':
        res.setHeader('content-encoding', 'br');
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        return res.end(zlib.brotliCompressSync('brotli ✓'));
      case '/redirect':
        res.statusCode = 302;
        res.setHeader('location', u.searchParams.get('to') ?? '/hello');
        return res.end();
      case '/loop':
        res.statusCode = 301;
        res.setHeader('location', '/loop');
        return res.end();
      case '/big':
        res.setHeader('content-type', 'text/plain');
        return res.end(Buffer.alloc(300_000, 97));
      case '/bomb':
        res.setHeader('content-encoding', 'gzip');
        return res.end(zlib.gzipSync(Buffer.alloc(5_000_000, 0)));
      case '/half':
        // Half a declared 400 kB body, then nothing until the receiver leaves.
        res.setHeader('content-length', '400000');
        res.write(Buffer.alloc(200_000, 98));
        return;
      case '/chunked':
        res.write(Buffer.alloc(150_000, 99));
        return res.end(Buffer.alloc(150_000, 99));
      case '/slow':
        setTimeout(() => res.end('late'), 3000).unref();
        return;
      case '/secret':
        secretHits++;
        return res.end('secret');
      case '/headers':
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ authorization: req.headers.authorization ?? null, apiKey: req.headers['x-api-key'] ?? null, other: req.headers['x-other'] ?? null }));
      default:
        res.statusCode = 404;
        return res.end('nope');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const open = () => createHttpEngineWith({ env: { ALLOW_PRIVATE_NETWORK: 'true' } });

async function rejects(p: Promise<unknown>, status: number, match: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ServiceError, `expected a catalogue error, got ${String(err)}`);
    assert.equal(err.status, status);
    assert.match(err.message, match);
    return true;
  });
}

test('blocked ranges: IPv4, IPv6 and IPv4-mapped forms are refused, public addresses pass', () => {
  const blocked = [
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '169.254.169.254',
    '198.18.0.1', '198.19.255.255', '224.0.0.1', '240.0.0.1', '255.255.255.255', '0.0.0.0', '192.0.2.1',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1',
    '::ffff:169.254.169.254', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:c0a8:101::1', '::127.0.0.1', '[::1]',
  ];
  for (const ip of blocked) assert.ok(blockedReason(ip), `${ip} should be blocked`);
  for (const ip of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
    assert.equal(blockedReason(ip), undefined, `${ip} should be public`);
  }
  assert.ok(blockedReason('localhost'), 'a hostname is never taken for an address');
});

test('fetches, decodes charsets from header and meta, and decompresses gzip and br', async () => {
  const h = open();
  try {
    const hello = await h.request({ url: `${base}/hello` });
    assert.equal(hello.status, 200);
    assert.equal(hello.text(), '<p>héllo</p>');
    assert.match((await h.request({ url: `${base}/latin1` })).text(), /café/);
    assert.equal((await h.request({ url: `${base}/gzip` })).text(), 'zipped ✓');
    assert.equal((await h.request({ url: `${base}/br` })).text(), 'brotli ✓');
  } finally {
    await h.close();
  }
});

test('follows redirects to the final URL and bounds them', async () => {
  const h = open();
  try {
    const res = await h.request({ url: `${base}/redirect` });
    assert.equal(res.url, `${base}/hello`);
    assert.equal(res.status, 200);
    await rejects(h.request({ url: `${base}/loop`, maxRedirects: 3 }), 502, /more than 3 redirects/);
  } finally {
    await h.close();
  }
});

test('size cap applies to the decoded body (a gzip bomb is stopped) and timeouts are clear', async () => {
  const h = open();
  try {
    await rejects(h.request({ url: `${base}/big`, maxBytes: 100_000 }), 413, /larger than the 100 KB limit/);
    await rejects(h.request({ url: `${base}/bomb`, maxBytes: 1_000_000 }), 413, /larger than/);
    await rejects(h.request({ url: `${base}/slow`, timeoutMs: 300 }), 502, /no response within 0.3 s/);
  } finally {
    await h.close();
  }
});

test('guard: loopback literal, localhost, schemes and redirects into private space are refused', async () => {
  const h = createHttpEngineWith({ env: {} });
  const before = secretHits;
  try {
    await rejects(h.request({ url: `${base}/secret` }), 400, /URL not allowed: 127\.0\.0\.1 resolves to a loopback address/);
    const port = new URL(base).port;
    await rejects(h.request({ url: `http://localhost:${port}/secret` }), 400, /localhost resolves to a loopback/);
    // Names under localhost are loopback without asking DNS (RFC 6761), and refused as such.
    await rejects(h.request({ url: `http://sub.localhost:${port}/secret` }), 400, /sub\.localhost resolves to a loopback/);
    await rejects(h.request({ url: `http://[::ffff:127.0.0.1]:${port}/secret` }), 400, /loopback/);
    await rejects(h.request({ url: 'http://169.254.169.254/latest/meta-data/' }), 400, /link-local/);
    await rejects(h.request({ url: 'file:///etc/passwd' }), 400, /only http and https/);
    await rejects(h.request({ url: 'ftp://example.com/' }), 400, /only http and https/);
    assert.equal(secretHits, before, 'no blocked request reached the server');
  } finally {
    await h.close();
  }
});

test('guard: the connect-time DNS answer is the one checked and the one connected to', async () => {
  const port = new URL(base).port;
  let lookups = 0;
  const resolver = async () => {
    lookups++;
    return [{ address: '127.0.0.1', family: 4 }];
  };
  const before = secretHits;
  const blocked = createHttpEngineWith({ env: {}, resolver });
  try {
    await rejects(blocked.request({ url: `http://rebind.test:${port}/secret` }), 400, /rebind\.test resolves to a loopback address/);
    assert.equal(secretHits, before);
    assert.equal(lookups, 1, 'exactly one resolution: at connect time');
  } finally {
    await blocked.close();
  }
  // Opening the name proves the socket really uses the guard's answer (rebind.test is not in DNS).
  const opened = createHttpEngineWith({ env: { ALLOW_HOSTS: 'rebind.test' }, resolver });
  try {
    const res = await opened.request({ url: `http://rebind.test:${port}/secret` });
    assert.equal(res.text(), 'secret');
  } finally {
    await opened.close();
  }
});

test('guard: ALLOW_HOSTS opens named hosts only; redirects to other private hosts stay blocked', async () => {
  const port = new URL(base).port;
  const h = createHttpEngineWith({ env: { ALLOW_HOSTS: 'localhost' } });
  const before = secretHits;
  try {
    const ok = await h.request({ url: `http://localhost:${port}/hello` });
    assert.equal(ok.status, 200);
    await rejects(h.request({ url: `http://localhost:${port}/redirect?to=${encodeURIComponent(`${base}/secret`)}` }), 400, /127\.0\.0\.1 resolves to a loopback/);
    assert.equal(secretHits, before);
  } finally {
    await h.close();
  }
});

test('guard: false (operator-configured provider URLs) is not guarded', async () => {
  const h = createHttpEngineWith({ env: {} });
  try {
    const res = await h.request({ url: `${base}/hello`, guard: false });
    assert.equal(res.status, 200);
  } finally {
    await h.close();
  }
});

test('a redirect to another origin drops credentials and turns the SSRF guard on', async () => {
  const port = new URL(base).port;
  const creds = { authorization: 'Bearer PROVIDER_SECRET', 'x-api-key': 'PROVIDER_KEY', 'x-other': 'kept' };
  const other = `http://localhost:${port}/headers`;
  const h = open();
  try {
    const same = await h.request({ url: `${base}/redirect?to=/headers`, headers: creds, guard: false });
    assert.deepEqual(same.json(), { authorization: 'Bearer PROVIDER_SECRET', apiKey: 'PROVIDER_KEY', other: 'kept' });
    const cross = await h.request({ url: `${base}/redirect?to=${encodeURIComponent(other)}`, headers: creds, guard: false });
    assert.deepEqual(cross.json(), { authorization: null, apiKey: null, other: 'kept' });
  } finally {
    await h.close();
  }
  const strict = createHttpEngineWith({ env: {} });
  try {
    // A trusted provider URL may not bounce us into private space.
    await rejects(strict.request({ url: `${base}/redirect?to=${encodeURIComponent(other)}`, guard: false }), 400, /loopback/);
  } finally {
    await strict.close();
  }
});

test('download: the decoded body goes straight to a file, within the size cap and the in-flight byte budget', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'http-download-'));
  const budget = new ByteBudget(200_000);
  const h = createHttpEngineWith({ env: { ALLOW_PRIVATE_NETWORK: 'true' }, bytesInFlight: budget });
  try {
    const gz = await h.download({ url: `${base}/gzip`, file: join(dir, 'a') });
    assert.deepEqual({ status: gz.status, bytes: gz.bytes }, { status: 200, bytes: Buffer.byteLength('zipped ✓') });
    assert.equal(readFileSync(join(dir, 'a'), 'utf8'), 'zipped ✓');
    // 300 kB declared against a 200 kB budget: refused before a byte is read, and nothing stays held.
    await assert.rejects(h.download({ url: `${base}/big`, file: join(dir, 'b'), maxBytes: 1_000_000 }), (e: ServiceError) => e.status === 429);
    await assert.rejects(h.download({ url: `${base}/bomb`, file: join(dir, 'c'), maxBytes: 100_000 }), (e: ServiceError) => e.status === 413);
    assert.equal(budget.inUse, 0);
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('request: a body held in memory counts in the in-flight byte budget while it is received, declared or not', async () => {
  const budget = new ByteBudget(200_000);
  const h = createHttpEngineWith({ env: { ALLOW_PRIVATE_NETWORK: 'true' }, bytesInFlight: budget });
  try {
    await rejects(h.request({ url: `${base}/big`, maxBytes: 1_000_000 }), 429, /receiving too much data at once/);
    await rejects(h.request({ url: `${base}/chunked`, maxBytes: 1_000_000 }), 429, /receiving too much data at once/);
    // What fits is read, and given back once read.
    assert.equal((await h.request({ url: `${base}/hello` })).text(), '<p>héllo</p>');
    assert.equal(budget.inUse, 0);
    // The size cap is still a 413, before the budget is asked.
    await rejects(h.request({ url: `${base}/big`, maxBytes: 100_000 }), 413, /larger than the 100 KB limit/);
    assert.equal(budget.inUse, 0);
  } finally {
    await h.close();
  }
});

test('download: a caller that stops a download midway leaves no partial file, and its bytes are given back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'http-download-'));
  const budget = new ByteBudget(1_000_000);
  const h = createHttpEngineWith({ env: { ALLOW_PRIVATE_NETWORK: 'true' }, bytesInFlight: budget });
  const file = join(dir, 'partial');
  try {
    const stop = new AbortController();
    const got = h.download({ url: `${base}/half`, file, signal: stop.signal });
    // Half the body is in the file before the caller leaves.
    for (let i = 0; i < 200 && !(existsSync(file) && statSync(file).size >= 200_000); i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(statSync(file).size, 200_000);
    assert.equal(budget.inUse, 400_000);
    stop.abort(new Error('caller gone'));
    await assert.rejects(got, /caller gone/);
    assert.equal(existsSync(file), false);
    assert.equal(budget.inUse, 0);
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
