/**
 * A loopback HTTP site for tests that scrape pages of their own: it listens on 127.0.0.1 at a port
 * the kernel picks, and closes with its open connections (a browser keeps some alive, which would
 * hold `close()` until they time out).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening site: its server, origin (`http://127.0.0.1:<port>`, no trailing slash) and port. */
export interface LoopbackSite {
  server: http.Server;
  base: string;
  port: number;
}

/** Starts a site answering with `handler`. */
export async function serveLoopback(handler: http.RequestListener): Promise<LoopbackSite> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { server, base: `http://127.0.0.1:${port}`, port };
}

/** Stops a site, cutting the connections its clients keep open. */
export function closeLoopback(server: http.Server): void {
  server.closeAllConnections();
  server.close();
}
