/**
 * The address half of the SSRF guard (issue 4, design: "SSRF guard"): decides whether an IP
 * address may be reached on behalf of a user. Everything that is not plainly public unicast is
 * refused — loopback, private, CGNAT, link-local (incl. the cloud metadata address), benchmark,
 * multicast, reserved and documentation ranges — for IPv4, IPv6 and IPv4 embedded in IPv6.
 */
import { isIP } from 'node:net';

type V4Range = [base: number, bits: number, name: string];

const V4_BLOCKED: V4Range[] = [
  [ip4('0.0.0.0'), 8, 'this-network'],
  [ip4('10.0.0.0'), 8, 'private'],
  [ip4('100.64.0.0'), 10, 'carrier-grade NAT'],
  [ip4('127.0.0.0'), 8, 'loopback'],
  [ip4('169.254.0.0'), 16, 'link-local'],
  [ip4('172.16.0.0'), 12, 'private'],
  [ip4('192.0.0.0'), 24, 'IETF protocol assignments'],
  [ip4('192.0.2.0'), 24, 'documentation'],
  [ip4('192.88.99.0'), 24, '6to4 relay'],
  [ip4('192.168.0.0'), 16, 'private'],
  [ip4('198.18.0.0'), 15, 'benchmark'],
  [ip4('198.51.100.0'), 24, 'documentation'],
  [ip4('203.0.113.0'), 24, 'documentation'],
  [ip4('224.0.0.0'), 4, 'multicast'],
  [ip4('240.0.0.0'), 4, 'reserved'],
];

/** Parses dotted IPv4 into an unsigned 32-bit number. */
function ip4(text: string): number {
  const parts = text.split('.').map(Number);
  return (((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!) >>> 0;
}

function v4Reason(n: number): string | undefined {
  for (const [base, bits, name] of V4_BLOCKED) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((n & mask) >>> 0) === base) return name;
  }
  return undefined;
}

/** Expands an IPv6 text (with `::` and an optional dotted IPv4 tail) into eight 16-bit groups. */
function ip6Groups(text: string): number[] | undefined {
  let s = text.toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const lastColon = s.lastIndexOf(':');
  const v4 = s.slice(lastColon + 1);
  if (v4.includes('.')) {
    // Rewrite a dotted IPv4 tail (::ffff:1.2.3.4) as two hex groups so one parser handles both.
    if (isIP(v4) !== 4) return undefined;
    const n = ip4(v4);
    s = `${s.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parse = (p: string) => (p === '' ? [] : p.split(':').map((g) => parseInt(g, 16)));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  if (fill < 0) return undefined;
  const groups = [...head, ...new Array(fill).fill(0), ...rest];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return undefined;
  return groups;
}

function v6Reason(g: number[]): string | undefined {
  const allZeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (allZeroTo(7) && g[7] === 0) return 'unspecified';
  if (allZeroTo(7) && g[7] === 1) return 'loopback';
  const embedded = ((g[6]! << 16) >>> 0) + g[7]!;
  // IPv4-mapped ::ffff:a.b.c.d and the deprecated IPv4-compatible ::a.b.c.d carry a v4 target.
  if (allZeroTo(5) && g[5] === 0xffff) return v4Reason(embedded) ?? undefined;
  if (allZeroTo(6)) return v4Reason(embedded) ?? 'IPv4-compatible';
  // IPv4/IPv6 translation 64:ff9b::/96 and 64:ff9b:1::/48 reach an embedded IPv4 address.
  if (g[0] === 0x64 && g[1] === 0xff9b) return v4Reason(embedded) ?? (g[2] === 1 ? 'local translation' : undefined);
  // 6to4 2002::/16 embeds the IPv4 address in groups 1-2.
  if (g[0] === 0x2002) return v4Reason(((g[1]! << 16) >>> 0) + g[2]!);
  if (g[0] === 0x2001 && g[1] === 0) return 'Teredo';
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'documentation';
  if (g[0] === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'discard-only';
  if (g[0]! >= 0xfc00 && g[0]! <= 0xfdff) return 'unique local';
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xffc0) === 0xfec0) return 'site-local';
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast';
  // Only 2000::/3 is allocated global unicast; everything else is reserved.
  if ((g[0]! & 0xe000) !== 0x2000) return 'reserved';
  return undefined;
}

/**
 * Why `ip` must not be reached (e.g. `loopback`), or undefined when it is public. Text that is
 * not an IP address is refused too, so a caller can never pass a hostname by mistake.
 */
export function blockedReason(ip: string): string | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const kind = isIP(bare.split('%')[0]!);
  if (kind === 4) return v4Reason(ip4(bare));
  if (kind === 6) {
    const groups = ip6Groups(bare);
    return groups ? v6Reason(groups) : 'unparseable';
  }
  return 'not an IP address';
}

/** True when `ip` is a public unicast address a user-supplied URL may reach. */
export function isPublicAddress(ip: string): boolean {
  return blockedReason(ip) === undefined;
}
