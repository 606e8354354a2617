// Where the service may send a request a customer chose (alert webhooks): https to a public address only, so
// a URL cannot make the service reach its own network (loopback, private ranges, cloud metadata at
// 169.254.169.254). Checked twice: the URL when it is saved, and every address its name resolves to when a
// request leaves (`publicLookup`, given to the HTTP client), so a name that later resolves to a private
// address (DNS rebinding) is refused too.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const NOT_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');
}

const LOOPBACK = new Set(['127.0.0.1', '::1']);

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:10.0.0.1`), else the address itself. */
const unmapped = (ip: string) => /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip;

/** Whether a request may go to `ip`: a public address, or loopback when `allowLoopback` says tests may. */
export function isAllowedAddress(ip: string, allowLoopback: boolean): boolean {
  const plain = unmapped(ip);
  const family = isIP(plain);
  if (family === 0) return false;
  if (allowLoopback && LOOPBACK.has(plain)) return true;
  return !NOT_PUBLIC.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why `raw` may not be an outbound URL, or null when it may: https (http only to loopback when allowed),
 * no user name or password in it, a host that is a name or a public address (never `localhost`).
 */
export function outboundUrlProblem(raw: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Give a full URL, such as https://example.com/hooks/unseen';
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopbackAllowed = allowLoopback && LOOPBACK.has(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackAllowed)) return 'Give an https:// URL';
  if (url.username || url.password) return 'Leave the user name and password out of the URL';
  if (isIP(host))
    return isAllowedAddress(host, allowLoopback) ? null : 'Give a URL on a public address, not a private or local one';
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    return 'Give a URL on a public host name, not a local one';
  }
  return null;
}

/**
 * Why a proxy origin's host may not be connected to, or null when it may: a public address, or a name with a
 * dot that is not `localhost` (where it resolves is checked at each connection).
 */
export function originHostProblem(hostname: string): string | null {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    return isAllowedAddress(host, false) ? null : 'Give an origin on a public address, not a private or local one';
  }
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    return 'Give an origin on a public host name, not a local one';
  }
  return null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s) that resolves as usual, then refuses the connection when any address of the
 * name is not public (ENOTPUBLIC).
 */
export function publicLookup(allowLoopback: boolean) {
  return (hostname: string, options: LookupOptions | number | undefined, callback: LookupCallback) => {
    const opts: LookupOptions = typeof options === 'object' ? options : {};
    dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => !isAllowedAddress(a.address, allowLoopback));
      if (refused || addresses.length === 0) {
        const e: NodeJS.ErrnoException = new Error(`${hostname} resolves to an address that is not public`);
        e.code = 'ENOTPUBLIC';
        return callback(e, []);
      }
      if (opts.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}
