/**
 * The SSRF guard (issue 4, design: "SSRF guard"). Schemes are checked before a request starts;
 * addresses are checked at connect time, after DNS, inside the socket's own `lookup`, so a name
 * that resolves to a public address once and to 127.0.0.1 the next time (DNS rebinding) cannot
 * pass. The operator opens it with `ALLOW_PRIVATE_NETWORK=true` or `ALLOW_HOSTS=a,b`.
 */
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { InputError } from '../../errors.js';
import { blockedReason } from './ip-ranges.js';

/** How a hostname is resolved: every address it maps to (tests substitute a fake resolver). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** The guard's settings, read once from the environment. */
export interface GuardPolicy {
  /** `ALLOW_PRIVATE_NETWORK=true`: no address checks at all (private deployments, tests). */
  allowPrivate: boolean;
  /** `ALLOW_HOSTS`: hostnames (or IP literals) exempt from the address check, lower-case. */
  allowHosts: Set<string>;
}

/** Reads `ALLOW_PRIVATE_NETWORK` and `ALLOW_HOSTS` (comma-separated). */
export function guardPolicyFromEnv(env: Record<string, string | undefined>): GuardPolicy {
  const allowPrivate = /^(1|true|yes)$/i.test(env.ALLOW_PRIVATE_NETWORK?.trim() ?? '');
  const allowHosts = new Set(
    (env.ALLOW_HOSTS ?? '')
      .split(',')
      .map((h) => normaliseHost(h.trim()))
      .filter(Boolean),
  );
  return { allowPrivate, allowHosts };
}

function normaliseHost(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/** The public text for a refused URL; the address goes in `details`, never a resolver error. */
export function blockedError(host: string, ip: string, reason: string): InputError {
  return new InputError(`URL not allowed: ${host} resolves to a ${reason} address, which cannot be fetched.`, {
    details: { host, address: ip, reason },
  });
}

/** `localhost` and every name under it (RFC 6761 §6.3). */
const LOCALHOST_NAME = /(^|\.)localhost\.?$/i;

/**
 * The default resolver: the system's, returning every address; except that `localhost` and its
 * subdomains are the loopback addresses without asking anyone (RFC 6761 §6.3, as browsers do),
 * so `sub.localhost` means the same to the HTTP engine and the browser, a DNS server cannot
 * point such a name elsewhere, and the guard refuses it as loopback unless private networks are allowed.
 */
export const systemResolver: Resolver = (hostname) =>
  LOCALHOST_NAME.test(hostname)
    ? Promise.resolve([
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ])
    : dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Guard checks shared by the undici path and the browser path. */
export class SsrfGuard {
  constructor(
    readonly policy: GuardPolicy,
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /** True when `host` is exempt from address checks. */
  exempt(host: string): boolean {
    return this.policy.allowPrivate || this.policy.allowHosts.has(normaliseHost(host));
  }

  /** Throws when the URL is not http(s) or has no host; returns the parsed URL. */
  checkUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new InputError(`Invalid URL: ${truncate(raw)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new InputError(`URL not allowed: only http and https URLs can be fetched (got ${url.protocol.replace(/:$/, '')}).`);
    }
    if (!url.hostname) throw new InputError(`Invalid URL: ${truncate(raw)}`);
    return url;
  }

  /**
   * Resolves `host` and throws when any of its addresses is blocked; returns the addresses.
   * IP literals are checked directly (sockets skip `lookup` for them).
   */
  async checkHost(host: string): Promise<{ address: string; family: number }[]> {
    const bare = normaliseHost(host);
    const literal = isIP(bare);
    const addresses = literal ? [{ address: bare, family: literal }] : await this.resolve(bare);
    if (this.exempt(bare)) return addresses;
    for (const a of addresses) {
      const reason = blockedReason(a.address);
      if (reason) throw blockedError(bare, a.address, reason);
    }
    return addresses;
  }

  /**
   * A `net.connect` lookup that resolves through this guard, so the check and the connection use
   * the very same answer (spec: checked at connect time after DNS).
   */
  lookup(): LookupFunction {
    return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
      this.checkHost(hostname).then(
        (addresses) => {
          const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
          if (wanted.length === 0) {
            const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
            callback(err);
          } else if (options.all) callback(null, wanted);
          else callback(null, wanted[0]!.address, wanted[0]!.family);
        },
        (err: unknown) => callback(err),
      );
    }) as LookupFunction;
  }
}

function truncate(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
