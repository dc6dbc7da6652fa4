/**
 * `WEB_PROXY_URL` (issue 27) for HTTPS pages, through a real service process: on both the plain
 * and the browser path an https:// page is reached through a CONNECT tunnel the operator's proxy
 * opens (with its credentials), so the proxy never sees the request in clear; `proxy: "none"`
 * goes directly. The site is a local HTTPS server with a certificate made for this run, which the
 * service is told to trust as a deployment would (NODE_EXTRA_CA_CERTS for the service's own
 * fetches; for Chromium, whose trust store is its own, a launcher that accepts this one key). The
 * launcher lives outside /usr, which the browser's jail would not show, so the jail is off here:
 * it changes how Chromium reaches the guard proxy, not what the guard proxy does.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromiumPath } from '../core/engines/browser/pool.js';
import { startServer, type TestServer } from './helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'tests27-tls-'));
const keyFile = join(dir, 'key.pem');
const certFile = join(dir, 'cert.pem');
let site: https.Server;
let proxy: http.Server;
let base = '';
/** CONNECT tunnels the proxy opened, and the requests it was handed in clear. */
const tunnels: { target: string; auth?: string }[] = [];
const inClear: string[] = [];
/** Requests the site answered (each came through a tunnel, or directly). */
let served = 0;

/** A launcher for the pool's Chromium that accepts the site's certificate (by its public key) and nothing else. */
function chromiumAcceptingOnly(cert: string): string {
  const spki = new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' });
  const pin = createHash('sha256').update(spki).digest('base64');
  const real = chromiumPath(process.env);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  // Same file name as the real binary: the pool picks its headless mode by it.
  const launcher = join(bin, basename(real));
  writeFileSync(launcher, `#!/bin/sh\nexec ${real} --ignore-certificate-errors-spki-list=${pin} "$@"\n`);
  // The browser runs as a uid of its own: it must be able to reach and run the launcher.
  for (const p of [dir, bin, launcher]) chmodSync(p, 0o755);
  return launcher;
}

before(async () => {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  site = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
    served++;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<title>Secure</title><p>Served over TLS for ${req.url}</p>`);
  });
  proxy = http.createServer((req, res) => {
    inClear.push(req.url!);
    res.writeHead(502).end();
  });
  // An operator's proxy: opens the tunnel it is asked for, to wherever it points.
  proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    tunnels.push({ target: req.url!, auth: req.headers['proxy-authorization'] });
    const [host, port] = [req.url!.slice(0, req.url!.lastIndexOf(':')), Number(req.url!.slice(req.url!.lastIndexOf(':') + 1))];
    const upstream = net.connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  });
  for (const s of [site, proxy]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
after(() => {
  for (const s of [site, proxy]) {
    s.closeAllConnections();
    s.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('WEB_PROXY_URL with an https:// page', () => {
  let s: TestServer;
  let key = '';
  const run = (input: unknown) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input } });
  before(async () => {
    const port = (proxy.address() as AddressInfo).port;
    s = await startServer({
      processMode: true,
      env: {
        ALLOW_HOSTS: '127.0.0.1',
        BROWSER_MAX_PAGES: '1',
        WEB_PROXY_URL: `http://op:s3cret@127.0.0.1:${port}`,
        NODE_EXTRA_CA_CERTS: certFile,
        CHROMIUM_PATH: chromiumAcceptingOnly(readFileSync(certFile, 'utf8')),
        BROWSER_BWRAP_BIN: join(dir, 'no-bwrap'),
      },
    });
    key = (await s.createKey({ credits: 1000 })).key;
  });
  after(() => s?.close());

  it('goes through a CONNECT tunnel with the proxy credentials on both paths, never in clear; proxy "none" goes directly', async () => {
    const auth = `Basic ${Buffer.from('op:s3cret').toString('base64')}`;
    const target = `127.0.0.1:${(site.address() as AddressInfo).port}`;
    for (const renderJs of [false, true]) {
      tunnels.length = 0;
      served = 0;
      const res = await run({ url: `${base}/page`, renderJs });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data.content, /Served over TLS for \/page/, `renderJs ${renderJs}`);
      assert.ok(tunnels.length > 0, `renderJs ${renderJs}: a tunnel through the proxy`);
      assert.deepEqual(tunnels, tunnels.map(() => ({ target, auth })), `renderJs ${renderJs}: every tunnel to the site, with the proxy's credentials`);
      assert.ok(served > 0);

      tunnels.length = 0;
      served = 0;
      const direct = await run({ url: `${base}/page`, renderJs, proxy: 'none' });
      assert.equal(direct.status, 200, direct.text);
      assert.match(direct.json.data.content, /Served over TLS for \/page/, `renderJs ${renderJs}`);
      assert.deepEqual(tunnels, [], `renderJs ${renderJs}: proxy "none" opens no tunnel`);
      assert.ok(served > 0);
    }
    assert.deepEqual(inClear, [], 'no https:// request was handed to the proxy in clear');
  });
});
