/**
 * The Origin check the MCP Streamable HTTP transport requires of servers (DNS-rebinding defence:
 * "servers MUST validate the Origin header"; an invalid one is answered 403). Agents and desktop
 * clients send no Origin and pass; a browser page may call only from a loopback origin (a local
 * tool talking to a local instance) or one listed in `MCP_ALLOWED_ORIGINS` (comma-separated
 * origins, or `*` for any) or `PUBLIC_BASE_URL`'s. The request's `Host` header is never trusted:
 * under DNS rebinding the attacker's page has the attacker's name as both Origin and Host
 * (issue 24 finding 11).
 */

/** Which browser origins may call `/mcp`. */
export interface OriginPolicy {
  any: boolean;
  listed: ReadonlySet<string>;
}

/** Parses `MCP_ALLOWED_ORIGINS`; a value that is not an origin stops boot naming the variable. */
export function originSetting(raw: string | undefined): OriginPolicy {
  const items = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const listed = new Set<string>();
  for (const item of items) {
    if (item === '*') continue;
    let origin: string;
    try {
      origin = new URL(item).origin;
    } catch {
      origin = 'null';
    }
    if (origin === 'null') throw new Error(`MCP_ALLOWED_ORIGINS: '${item}' is not an origin such as https://app.example.com.`);
    listed.add(origin);
  }
  return { any: items.includes('*'), listed };
}

/** Host names that can only mean this machine (a rebinding page cannot take them as its origin). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True when a request with this `Origin` may proceed. */
export function originAllowed(policy: OriginPolicy, origin: string | undefined): boolean {
  if (origin === undefined || policy.any) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && LOOPBACK_HOSTS.has(parsed.hostname)) return true;
  return policy.listed.has(parsed.origin);
}
