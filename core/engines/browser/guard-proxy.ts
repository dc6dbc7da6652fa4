/**
 * The browser's network exit (issue 4: "the browser path applies the same check to every request
 * the page makes"). Request interception sees documents, scripts, fetch/XHR and images, but not
 * WebSockets, service workers or every worker; and Chromium resolves names itself after the
 * check. So Chromium is started with this loopback proxy as its only way out: plain HTTP requests
 * are forwarded and CONNECT tunnels (HTTPS, WSS) opened only to addresses the SSRF guard accepts,
 * resolved here and connected to with the very same answer.
 */
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

/** Starts the proxy on 127.0.0.1 (random port). */
export async function startGuardProxy(guard: SsrfGuard): Promise<GuardProxy> {
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
      // Sockets skip `lookup` for IP literals, so those are checked here.
      if (net.isIP(target.hostname.replace(/^\[|\]$/g, ''))) await guard.checkHost(target.hostname);
    } catch (err) {
      const [status, text] = refusal(err);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
      return;
    }
    const upstream = http.request({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port || 80,
      method: req.method,
      path: target.pathname + target.search,
      headers: strip(req.headers),
      agent,
      lookup,
    });
    upstream.on('response', (ur) => {
      res.writeHead(ur.statusCode ?? 502, strip(ur.headers));
      ur.pipe(res);
    });
    upstream.on('error', (err) => {
      if (res.headersSent) return res.destroy();
      const [status, text] = refusal(err);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    });
    req.pipe(upstream);
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
    const upstream = net.connect({ host: address, port: Number(m[2]) });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => (client.writable && upstream.connecting ? client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n') : client.destroy()));
    client.on('close', () => upstream.destroy());
  });
  // ws:// without a tunnel would need its own forwarding; refuse it rather than let it bypass the check.
  server.on('upgrade', (_req, socket: net.Socket) => socket.end('HTTP/1.1 403 Forbidden\r\n\r\n'));
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
