import { isIP } from 'node:net';

/** Parses an IPv4 or IPv6 address into a bigint and its bit length, or null. IPv4-mapped IPv6 counts as IPv4. */
export function ipToBigInt(ip: string): { value: bigint; bits: 32 | 128 } | null {
  let s = ip.trim();
  if (s.startsWith('::ffff:') && isIP(s.slice(7)) === 4) s = s.slice(7);
  const kind = isIP(s);
  if (kind === 4) {
    let v = 0n;
    for (const part of s.split('.')) v = (v << 8n) | BigInt(Number(part));
    return { value: v, bits: 32 };
  }
  if (kind === 6) {
    let text = s.split('%')[0] as string;
    // An embedded IPv4 tail (e.g. ::1.2.3.4) becomes two hex groups.
    const m = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
    if (m) {
      const [a, b, c, d] = (m[1] as string).split('.').map(Number) as [number, number, number, number];
      text = `${text.slice(0, m.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    }
    const [head, tail] = text.split('::') as [string, string | undefined];
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
    if (groups.length !== 8) return null;
    let v = 0n;
    for (const g of groups) v = (v << 16n) | BigInt(Number.parseInt(g || '0', 16));
    return { value: v, bits: 128 };
  }
  return null;
}

/** True when `ip` lies inside the CIDR network (`10.0.0.0/8`, `2001:db8::/32`, or a bare address). */
export function cidrContains(cidr: string, ip: string): boolean {
  const [base, lenText] = cidr.split('/') as [string, string | undefined];
  const net = ipToBigInt(base);
  const addr = ipToBigInt(ip);
  if (!net || !addr || net.bits !== addr.bits) return false;
  const len = lenText === undefined ? net.bits : Number(lenText);
  if (!Number.isInteger(len) || len < 0 || len > net.bits) return false;
  const shift = BigInt(net.bits - len);
  return net.value >> shift === addr.value >> shift;
}

export function inAnyNetwork(networks: readonly string[], ip: string | null | undefined): boolean {
  if (!ip) return false;
  return networks.some((n) => cidrContains(n, ip));
}
