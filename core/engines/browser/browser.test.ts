/** Unit tests of the browser pool against pages on loopback (one warm Chromium for the file). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { createBrowserEngine } from './index.js';
import { BrowserPool, poolSettingsFromEnv } from './pool.js';
import { ServiceError } from '../../errors.js';
import { descendsFrom } from '../processes.js';

let server: http.Server;
let port = 0;
let secretHits = 0;
let upgrades = 0;
const log = { debug() {}, info() {}, warn() {}, error() {} };

before(async () => {
  server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    res.setHeader('access-control-allow-origin', '*');
    if (u.pathname === '/js') {
      res.setHeader('content-type', 'text/html');
      return res.end(`<title>JS</title><div id=app></div><script>document.getElementById('app').textContent='built by script'</script>`);
    }
    if (u.pathname === '/fetches') {
      res.setHeader('content-type', 'text/html');
      return res.end(`<title>F</title><p id=out>waiting</p><script>
        fetch('http://127.0.0.1:${port}/secret').then(r => r.text()).then(t => out.textContent = 'got ' + t, () => out.textContent = 'blocked');
      </script>`);
    }
    if (u.pathname === '/ws') {
      res.setHeader('content-type', 'text/html');
      return res.end(`<title>WS</title><p id=out>waiting</p><script>
        const ws = new WebSocket('ws://127.0.0.1:${port}/socket');
        ws.onopen = () => { out.textContent = 'open'; }; ws.onerror = () => { out.textContent = 'ws failed'; };</script>`);
    }
    if (u.pathname === '/slow') {
      setTimeout(() => res.end('<title>slow</title>'), 400).unref();
      return;
    }
    if (u.pathname === '/refresh-late') {
      res.setHeader('content-type', 'text/html');
      return res.end('<title>Leaving</title><meta http-equiv="refresh" content="0;url=/late"><p>moving on</p>');
    }
    if (u.pathname === '/late') {
      res.setHeader('content-type', 'text/html');
      setTimeout(() => res.end('<title>Late</title><p>arrived</p>'), 300).unref();
      return;
    }
    if (u.pathname === '/refresh-hash') {
      res.setHeader('content-type', 'text/html');
      return res.end('<title>Hash</title><meta http-equiv="refresh" content="0;url=#end"><p id=end>here</p>');
    }
    if (u.pathname === '/blob') {
      res.setHeader('content-type', 'application/octet-stream');
      return res.end(Buffer.alloc(3_000_000, 0x41));
    }
    if (u.pathname === '/worker.js') {
      res.setHeader('content-type', 'text/javascript');
      return res.end(`fetch('/blob').then((r) => r.arrayBuffer()).then((b) => postMessage(b.byteLength))`);
    }
    if (u.pathname === '/worker') {
      res.setHeader('content-type', 'text/html');
      return res.end(`<title>W</title><p id=out>small</p><script>new Worker('/worker.js').onmessage = (e) => { out.textContent = 'got ' + e.data; };</script>`);
    }
    if (u.pathname === '/fetches-blob') {
      res.setHeader('content-type', 'text/html');
      return res.end(`<title>B</title><p id=out>small</p><script>fetch('/blob').then((r) => r.arrayBuffer()).then((b) => { out.textContent = 'got ' + b.byteLength; })</script>`);
    }
    if (u.pathname === '/secret') {
      secretHits++;
      return res.end('secret');
    }
    res.setHeader('content-type', 'text/html');
    res.end('<title>Static</title><h1>Hello</h1>');
  });
  server.on('upgrade', (_req, socket) => {
    upgrades++;
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

test('renders JS pages, screenshots, recycles after N jobs and closes', async () => {
  const engine = createBrowserEngine({ dataDir: os.tmpdir(), env: { ALLOW_PRIVATE_NETWORK: 'true', BROWSER_RECYCLE_AFTER: '3' }, log, publicBaseUrl: () => '' });
  try {
    const js = await engine.render({ url: `http://127.0.0.1:${port}/js` });
    assert.equal(js.status, 200);
    assert.equal(js.title, 'JS');
    assert.match(js.html, /built by script/);
    const shot = await engine.render({ url: `http://127.0.0.1:${port}/`, screenshot: {}, viewport: { width: 400, height: 300 } });
    assert.deepEqual([...shot.screenshot!.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    assert.equal(Buffer.from(shot.screenshot!).readUInt32BE(16), 400);
    await engine.render({ url: `http://127.0.0.1:${port}/` });
    await engine.render({ url: `http://127.0.0.1:${port}/` });
    assert.equal(engine.stats().launches, 2, 'a fresh browser after 3 jobs');
    assert.equal(engine.stats().jobs, 4);
    assert.equal(engine.stats().recycles, 1, 'the first browser was retired on schedule');
    assert.equal(engine.stats().crashes, 0);
  } finally {
    await engine.close();
  }
});

test('guard in the browser: the page itself and its script fetches of private addresses are refused', async () => {
  const engine = createBrowserEngine({ dataDir: os.tmpdir(), env: { ALLOW_HOSTS: 'localhost' }, log, publicBaseUrl: () => '' });
  const before = secretHits;
  try {
    await assert.rejects(engine.render({ url: `http://127.0.0.1:${port}/` }), (e: unknown) => e instanceof ServiceError && e.status === 400 && /loopback/.test(e.message));
    const page = await engine.render({ url: `http://localhost:${port}/fetches`, waitMs: 300 });
    assert.match(page.html, /<p id="out">blocked<\/p>/);
    assert.ok(page.blocked.some((b) => b.url.includes('/secret') && /loopback/.test(b.reason)));
    assert.equal(secretHits, before, 'the private address was never reached');
    // WebSockets are invisible to request interception; the guard proxy refuses them.
    const ws = await engine.render({ url: `http://localhost:${port}/ws`, waitMs: 300 });
    assert.match(ws.html, /<p id="out">ws failed<\/p>/);
    assert.equal(upgrades, 0, 'no WebSocket reached the private address');
  } finally {
    await engine.close();
  }
});

test('page cap with a bounded queue: beyond it callers get 429 Busy; queued jobs still run', async () => {
  const engine = createBrowserEngine({ dataDir: os.tmpdir(), env: { ALLOW_PRIVATE_NETWORK: 'true', BROWSER_MAX_PAGES: '1', BROWSER_QUEUE_MAX: '1' }, log, publicBaseUrl: () => '' });
  try {
    const url = `http://127.0.0.1:${port}/slow`;
    const results = await Promise.allSettled([engine.render({ url }), engine.render({ url }), engine.render({ url })]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected']);
    const err = (results[2] as PromiseRejectedResult).reason;
    assert.ok(err instanceof ServiceError && err.status === 429, String(err));
    assert.equal(engine.stats().jobs, 2);
  } finally {
    await engine.close();
  }
});

test('a crashed browser is replaced on the next job', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'browser-crash-'));
  const engine = createBrowserEngine({ dataDir, env: { ALLOW_PRIVATE_NETWORK: 'true' }, log, publicBaseUrl: () => '' });
  try {
    await engine.render({ url: `http://127.0.0.1:${port}/` });
    // Our own Chromium: the main process is the one this test process started (as root its profile
    // is not under the data dir, browser-jail.ts), the only browser alive here now.
    const pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return /chrom/.test(cmd.split('\0')[0]!) && !cmd.includes('--type=') && descendsFrom(Number(pid), process.pid);
      } catch {
        return false;
      }
    });
    assert.equal(pids.length, 1);
    process.kill(Number(pids[0]), 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const again = await engine.render({ url: `http://127.0.0.1:${port}/js` });
    assert.match(again.html, /built by script/);
    assert.equal(engine.stats().launches, 2);
    assert.equal(engine.stats().crashes, 1, 'the killed browser counts as a crash, not a recycle');
    assert.equal(engine.stats().recycles, 0);
  } finally {
    await engine.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a browser that dies with commands unread in its pipe, after puppeteer let go of it, raises nothing in the service', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'browser-reset-'));
  const pool = new BrowserPool(poolSettingsFromEnv({ ALLOW_PRIVATE_NETWORK: 'true' }, dataDir), log);
  try {
    const browser = await pool.use(async (fresh) => fresh.page.browser());
    const launcher = browser.process()!;
    const toBrowser = launcher.stdio[3] as Socket;
    // Puppeteer's connection lets go of the pipes (as when it closes, or the browser is killed at
    // its memory cap); the browser, stopped, cannot read what is written to it next, and then dies:
    // its end of the pipe is closed with bytes unread, so this end reads ECONNRESET.
    const tree = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid && descendsFrom(Number(d), launcher.pid!)).map(Number);
    const closed = new Promise((r) => toBrowser.once('close', r));
    for (const pid of tree) process.kill(pid, 'SIGSTOP');
    toBrowser.write('{"id":1,"method":"Browser.getVersion"}\0');
    await browser.disconnect();
    for (const pid of tree) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone with its parent already
      }
    }
    await closed;
    // An 'error' nobody listens to is thrown on a later tick: this test fails with it on the old code.
    await new Promise((r) => setImmediate(r));
  } finally {
    await pool.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a quick meta refresh is read at its destination, even when the read spans the navigation', async () => {
  const engine = createBrowserEngine({ dataDir: os.tmpdir(), env: { ALLOW_PRIVATE_NETWORK: 'true' }, log, publicBaseUrl: () => '' });
  try {
    // The destination answers 300 ms after the refresh starts, so the first page is being read
    // when the navigation replaces it: the window that, hit by chance under CPU load, used to
    // fail the job with "Execution context was destroyed".
    const late = await engine.render({ url: `http://127.0.0.1:${port}/refresh-late` });
    assert.deepEqual({ url: late.url, status: late.status, title: late.title }, { url: `http://127.0.0.1:${port}/late`, status: 200, title: 'Late' });
    assert.match(late.html, /arrived/);
    // A refresh to a fragment stays on the page: no navigation to wait for.
    const started = Date.now();
    const hash = await engine.render({ url: `http://127.0.0.1:${port}/refresh-hash` });
    assert.deepEqual({ url: hash.url, title: hash.title }, { url: `http://127.0.0.1:${port}/refresh-hash#end`, title: 'Hash' });
    assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
  } finally {
    await engine.close();
  }
});

test("maxBytes counts what the page downloads, a worker's fetches included: past it the job is a 413", async () => {
  const engine = createBrowserEngine({ dataDir: os.tmpdir(), env: { ALLOW_PRIVATE_NETWORK: 'true' }, log, publicBaseUrl: () => '' });
  try {
    const url = `http://127.0.0.1:${port}/worker`;
    // Without a cap the worker's 3 MB arrive and the page says so.
    const free = await engine.render({ url, waitMs: 300 });
    assert.match(free.html, /got 3000000/);
    await assert.rejects(
      engine.render({ url, maxBytes: 1_000_000, waitMs: 300 }),
      (e: unknown) => e instanceof ServiceError && e.status === 413 && e.message === `Failed to retrieve http://127.0.0.1:${port}/worker: the response is larger than the 1 MB limit.`,
    );
    // A page within the cap renders as usual.
    const small = await engine.render({ url: `http://127.0.0.1:${port}/js`, maxBytes: 1_000_000 });
    assert.match(small.html, /built by script/);
  } finally {
    await engine.close();
  }
});

test("maxBytes counts the page's own downloads in a key's warm context too, call after call", async () => {
  // The meter reads the page's traffic from puppeteer's own session of the page (byte-meter.ts):
  // a kept page must go on reporting it to every later job of its key.
  const engine = createBrowserEngine({ dataDir: os.tmpdir(), env: { ALLOW_PRIVATE_NETWORK: 'true' }, log, publicBaseUrl: () => '' });
  try {
    const url = `http://127.0.0.1:${port}/fetches-blob`;
    const owner = 'key-meter';
    for (let call = 0; call < 2; call++) {
      const free = await engine.render({ url, owner, waitMs: 200 });
      assert.match(free.html, /got 3000000/);
      await assert.rejects(
        engine.render({ url, owner, maxBytes: 1_000_000, waitMs: 200 }),
        (e: unknown) => e instanceof ServiceError && e.status === 413 && /larger than the 1 MB limit/.test(e.message),
      );
    }
    // A call within the cap still renders as usual in the same key's context.
    const small = await engine.render({ url: `http://127.0.0.1:${port}/js`, owner, maxBytes: 1_000_000 });
    assert.match(small.html, /built by script/);
  } finally {
    await engine.close();
  }
});
