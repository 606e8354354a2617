import { isIPv4, isIPv6 } from 'node:net';

/**
 * Address parsing shared by the lookups. An address is either IPv4 (a uint32) or IPv6 (two unsigned
 * 64-bit halves). IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is treated as the IPv4 address it carries.
 */
export type ParsedIp = { v: 4; n: number } | { v: 6; hi: bigint; lo: bigint };

export function ipv4ToInt(ip: string): number {
  const p = ip.split('.');
  return ((Number(p[0]) << 24) | (Number(p[1]) << 16) | (Number(p[2]) << 8) | Number(p[3])) >>> 0;
}

/** Eight 16-bit groups of a valid IPv6 address (an embedded dotted IPv4 tail is expanded). */
function ipv6Groups(ip: string): number[] {
  let s = ip;
  const pct = s.indexOf('%');
  if (pct >= 0) s = s.slice(0, pct);
  const tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.indexOf('.', lastColon) >= 0) {
    const n = ipv4ToInt(s.slice(lastColon + 1));
    tail.push(n >>> 16, n & 0xffff);
    s = s.slice(0, lastColon);
    if (s.endsWith(':')) s = `${s}:`;
  }
  const [head = '', rest] = s.split('::');
  const h = head ? head.split(':').map((x) => Number.parseInt(x, 16)) : [];
  const t = rest ? rest.split(':').map((x) => Number.parseInt(x, 16)) : [];
  const fill = rest === undefined ? [] : Array<number>(8 - h.length - t.length - tail.length).fill(0);
  return [...h, ...fill, ...t, ...tail];
}

export function parseIp(ip: string | null | undefined): ParsedIp | null {
  if (!ip) return null;
  if (isIPv4(ip)) return { v: 4, n: ipv4ToInt(ip) };
  if (!isIPv6(ip)) return null;
  const g = ipv6Groups(ip);
  if (g.length !== 8) return null;
  // IPv4-mapped (::ffff:0:0/96): look the IPv4 address up instead.
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    return { v: 4, n: ((g[6]! << 16) | g[7]!) >>> 0 };
  }
  const hi = (BigInt(g[0]!) << 48n) | (BigInt(g[1]!) << 32n) | (BigInt(g[2]!) << 16n) | BigInt(g[3]!);
  const lo = (BigInt(g[4]!) << 48n) | (BigInt(g[5]!) << 32n) | (BigInt(g[6]!) << 16n) | BigInt(g[7]!);
  return { v: 6, hi, lo };
}

/** Canonical text form usable by an mmdb reader (IPv4-mapped addresses become plain IPv4). */
export function normalizeIp(ip: string | null | undefined): string | null {
  // Plain IPv4 text is already canonical (isIPv4 refuses leading zeros): the common case, not parsed.
  if (ip && isIPv4(ip)) return ip;
  const p = parseIp(ip);
  if (!p) return null;
  if (p.v === 4) return [p.n >>> 24, (p.n >>> 16) & 255, (p.n >>> 8) & 255, p.n & 255].join('.');
  const pct = ip!.indexOf('%');
  return pct >= 0 ? ip!.slice(0, pct) : ip!;
}
