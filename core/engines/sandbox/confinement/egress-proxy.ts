/**
 * Guarded network for the `commands` step. Package installs need the internet (spec §4.8), but a
 * shared network namespace would also reach the host's loopback services (the service itself, a
 * database, Redis) and the cloud metadata address. So the commands sandbox gets its own empty
 * network namespace, and its only way out is an HTTP CONNECT proxy served here on a Unix socket
 * bound into the sandbox. Each CONNECT is resolved on the host and refused unless the address is
 * public (the HTTP engine's SSRF ranges and its `ALLOW_PRIVATE_NETWORK` / `ALLOW_HOSTS` settings)
 * or the host is a configured package index (`SANDBOX_PACKAGE_HOSTS`), and the port is 80 or 443; the proxy then connects to the checked address, so DNS rebinding
 * cannot swap it.
 */
import net from 'node:net';
import dns from 'node:dns';
import { readFileSync } from 'node:fs';
import { chmod, chown, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { blockedReason } from '../../http/ip-ranges.js';
import type { GuardPolicy } from '../../http/guard.js';

const ALLOWED_PORTS = new Set([80, 443]);
const HEAD_LIMIT = 8192;

let forwarder: string | undefined;

/**
 * Source of the forwarder that runs inside the sandbox as the commands' parent (forwarder.cjs,
 * beside this module in the sources and in dist): it listens on the sandbox's own
 * 127.0.0.1:3128, pipes each connection to the proxy socket, and runs the commands.
 */
export function forwarderSource(): string {
  forwarder ??= readFileSync(fileURLToPath(new URL('./forwarder.cjs', import.meta.url)), 'utf8');
  return forwarder;
}

/** Proxy settings the commands see (npm, pip, curl and most tools honour these). */
export const PROXY_ENV: Record<string, string> = {
  HTTPS_PROXY: 'http://127.0.0.1:3128',
  HTTP_PROXY: 'http://127.0.0.1:3128',
  https_proxy: 'http://127.0.0.1:3128',
  http_proxy: 'http://127.0.0.1:3128',
  npm_config_proxy: 'http://127.0.0.1:3128',
  npm_config_https_proxy: 'http://127.0.0.1:3128',
};

/** The SSRF settings plus the package indexes that are always reachable. */
export interface EgressPolicy extends GuardPolicy {
  packageHosts: Set<string>;
}

/** A running proxy for one commands step. */
export interface EgressProxyHandle {
  socketPath: string;
  close(): Promise<void>;
}

/** Starts a CONNECT proxy on `socketPath`, connectable by `uid`. */
export async function startEgressProxy(socketPath: string, uid: number | null, policy: EgressPolicy): Promise<EgressProxyHandle> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    handle(client, policy, sockets);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  if (uid !== null) await chown(socketPath, uid, uid);
  await chmod(socketPath, 0o600);
  return {
    socketPath,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(socketPath, { force: true });
    },
  };
}

function handle(client: net.Socket, policy: EgressPolicy, sockets: Set<net.Socket>): void {
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > HEAD_LIMIT) refuse(client, 431, 'Request Header Fields Too Large');
      return;
    }
    client.off('data', onData);
    client.pause();
    const rest = head.subarray(end + 4);
    const line = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
    void connect(client, line, rest, policy, sockets);
  };
  client.on('data', onData);
}

async function connect(client: net.Socket, line: string, rest: Buffer, policy: EgressPolicy, sockets: Set<net.Socket>): Promise<void> {
  const m = /^CONNECT ([^\s:]+|\[[0-9a-fA-F:.]+\]):(\d{1,5}) HTTP\/1\.[01]$/.exec(line);
  if (!m) return refuse(client, 405, 'Only CONNECT to port 80 or 443 is allowed');
  const host = m[1]!.replace(/^\[|\]$/g, '').toLowerCase();
  const port = Number(m[2]);
  if (!ALLOWED_PORTS.has(port)) return refuse(client, 403, 'Port not allowed');
  let address: string | undefined;
  try {
    const all = net.isIP(host) ? [{ address: host }] : await dns.promises.lookup(host, { all: true, verbatim: true });
    const exempt = policy.allowPrivate || policy.allowHosts.has(host) || policy.packageHosts.has(host);
    address = all.find((a) => exempt || blockedReason(a.address) === undefined)?.address;
  } catch {
    return refuse(client, 502, 'Name not resolved');
  }
  if (!address) return refuse(client, 403, 'Destination not allowed');
  const upstream = net.connect({ host: address, port });
  sockets.add(upstream);
  upstream.on('close', () => sockets.delete(upstream));
  upstream.once('connect', () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (rest.length) upstream.write(rest);
    upstream.pipe(client);
    client.pipe(upstream);
    client.resume();
  });
  upstream.on('error', () => {
    if (!client.destroyed && client.bytesWritten === 0) refuse(client, 502, 'Upstream unreachable');
    else client.destroy();
  });
  client.on('close', () => upstream.destroy());
}

function refuse(client: net.Socket, status: number, text: string): void {
  client.end(`HTTP/1.1 ${status} ${text}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
}
