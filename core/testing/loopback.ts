/**
 * A loopback HTTP server for provider fakes (design: "upstream fakes beside their plugin"): listens
 * on 127.0.0.1 at a free port and closes with its open connections, so a test never hangs on a
 * keep-alive socket.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running fake server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`, to put in the plugin's `<ID>_BASE_URL`. */
  url: string;
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1, port 0. */
export async function serveLoopback(handler: http.RequestListener): Promise<LoopbackServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
