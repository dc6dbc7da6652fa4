/**
 * The browser's network exit (issue 4: "the browser path applies the same check to every request
 * the page makes"). Request interception sees documents, scripts, fetch/XHR and images, but not
 * WebSockets, service workers or every worker; and Chromium resolves names itself after the
 * check. So Chromium is started with this proxy as its only way out: plain HTTP requests
 * are forwarded and CONNECT tunnels (HTTPS, WSS) opened only to addresses the SSRF guard accepts,
 * resolved here and connected to with the very same answer. It listens on loopback, and on a Unix
 * socket in each jailed browser's exits folder (browser-exits.ts): a jailed browser has no other
 * network, so even a page or an exploit that ignores the proxy setting reaches nothing else.
 */
import { chmodSync, chownSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ServiceError } from '../../errors.js';
import type { SsrfGuard } from '../http/guard.js';

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** A running proxy. */
export interface GuardProxy {
  /** `http://127.0.0.1:<port>` for `--proxy-server`. */
  url: string;
  /**
   * Also serves connections made to a Unix socket at `path`, connectable by `uid` only (the way
   * in from a browser in a network namespace of its own, browser-exits.ts); the returned function
   * stops that listener and removes the socket. `null`: the service's own uid.
   */
  listenUnix(path: string, uid: number | null): () => void;
  close(): Promise<void>;
}

function strip(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = { ...headers };
  for (const h of HOP_BY_HOP) delete out[h];
  return out;
}

function refusal(err: unknown): [number, string] {
  return err instanceof ServiceError && err.status === 400 ? [403, err.message] : [502, 'Upstream unreachable'];
}

/** `Proxy-Authorization` for an upstream proxy URL with credentials. */
function upstreamAuth(upstream: URL | undefined): Record<string, string> {
  if (!upstream?.username) return {};
  const creds = `${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(creds).toString('base64')}` };
}

/**
 * Opens a tunnel to `host:port` through the upstream proxy (HTTP CONNECT); resolves with the
 * socket once the upstream answered 200, and with the bytes it sent past its answer.
 */
function tunnel(upstream: URL, host: string, port: string): Promise<{ socket: net.Socket; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: upstream.hostname.replace(/^\[|\]$/g, ''), port: Number(upstream.port || 80) });
    let got = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) {
        if (got.length > 16_384) fail(new Error('upstream proxy answer too long'));
        return;
      }
      socket.off('data', onData);
      if (!/^HTTP\/1\.[01] 200/.test(got.toString('latin1', 0, 16))) return fail(new Error(`upstream proxy refused: ${got.toString('latin1', 0, got.indexOf('\r\n'))}`));
      resolve({ socket, rest: got.subarray(end + 4) });
    };
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.on('data', onData);
    socket.once('error', fail);
    socket.once('connect', () => {
      const auth = upstreamAuth(upstream)['proxy-authorization'];
      socket.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`);
    });
  });
}

/**
 * Starts the proxy on 127.0.0.1 (random port). With `upstream` (the operator's `WEB_PROXY_URL`),
 * what the guard lets through goes on through that proxy instead of directly: the guard still
 * decides by the target's own addresses, so a proxy can never become a way to the private network.
 */
export async function startGuardProxy(guard: SsrfGuard, upstream?: URL): Promise<GuardProxy> {
  const sockets = new Set<net.Socket>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const lookup = guard.lookup();

  const server = http.createServer(async (req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (target.protocol !== 'http:') {
      res.writeHead(400).end();
      return;
    }
    try {
      // Sockets skip `lookup` for IP literals, so those are checked here (and every name when an
      // upstream proxy, not this process, resolves it).
      if (upstream || net.isIP(target.hostname.replace(/^\[|\]$/g, ''))) await guard.checkHost(target.hostname);
    } catch (err) {
      const [status, text] = refusal(err);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
      return;
    }
    const upstreamReq = upstream
      ? http.request({
          host: upstream.hostname.replace(/^\[|\]$/g, ''),
          port: upstream.port || 80,
          method: req.method,
          path: target.href,
          headers: { ...strip(req.headers), host: target.host, ...upstreamAuth(upstream) },
          agent,
        })
      : http.request({
          host: target.hostname.replace(/^\[|\]$/g, ''),
          port: target.port || 80,
          method: req.method,
          path: target.pathname + target.search,
          headers: strip(req.headers),
          agent,
          lookup,
        });
    upstreamReq.on('response', (ur) => {
      res.writeHead(ur.statusCode ?? 502, strip(ur.headers));
      ur.pipe(res);
    });
    upstreamReq.on('error', (err) => {
      if (res.headersSent) return res.destroy();
      const [status, text] = refusal(err);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    });
    // The page went away (its context closed) before the answer was through: so does the
    // request to the site, or a response that never ends would hold it open for good.
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  });

  server.on('connect', async (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:]+):(\d{1,5})$/.exec(req.url ?? '');
    if (!m) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const host = m[1]!.replace(/^\[|\]$/g, '');
    let address: string;
    try {
      address = (await guard.checkHost(host))[0]!.address;
    } catch (err) {
      const [status, text] = refusal(err);
      return void client.end(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\nContent-Type: text/plain\r\n\r\n${text}`);
    }
    if (upstream) {
      try {
        const { socket, rest } = await tunnel(upstream, m[1]!, m[2]!);
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => client.destroy());
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length) client.write(rest);
        if (head.length) socket.write(head);
        socket.pipe(client);
        client.pipe(socket);
        client.on('close', () => socket.destroy());
      } catch {
        client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      }
      return;
    }
    const direct = net.connect({ host: address, port: Number(m[2]) });
    sockets.add(direct);
    direct.on('close', () => sockets.delete(direct));
    direct.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) direct.write(head);
      direct.pipe(client);
      client.pipe(direct);
    });
    direct.on('error', () => (client.writable && direct.connecting ? client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n') : client.destroy()));
    client.on('close', () => direct.destroy());
  });
  // ws:// without a tunnel would need its own forwarding; refuse it rather than let it bypass the check.
  // The HTTP server stops handling an upgraded socket's errors: a browser that resets it first must not crash the service.
  server.on('upgrade', (_req, socket: net.Socket) => socket.on('error', () => socket.destroy()).end('HTTP/1.1 403 Forbidden\r\n\r\n'));
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const unixListeners = new Set<net.Server>();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    listenUnix(path, uid) {
      // The HTTP server parses whatever connection it is handed, so both ways in share its checks.
      const unix = net.createServer((s) => server.emit('connection', s));
      rmSync(path, { force: true });
      // listen() binds before it returns: the socket exists (and is given away) at once.
      unix.listen(path);
      unix.on('error', () => unix.close());
      if (uid !== null) chownSync(path, uid, uid);
      chmodSync(path, 0o600);
      unixListeners.add(unix);
      return () => {
        if (!unixListeners.delete(unix)) return;
        unix.close();
        rmSync(path, { force: true });
      };
    },
    async close() {
      for (const u of unixListeners) u.close();
      unixListeners.clear();
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
