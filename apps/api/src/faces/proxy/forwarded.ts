import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { connectionTls } from '../collect/connection-tls.ts';
import { clientAddress, type ProxyTrust } from '../collect/exchange.ts';
import type { Forwarded } from './headers.ts';

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();

/**
 * Who asked, as the proxy tells the gate and the origin. The client's address is Koa's `ctx.ip` under the
 * same TRUST_PROXY/TRUST_PROXY_HOPS (the connection's, or what our own proxies in front say); an address
 * that is not one falls back to the connection's. X-Forwarded-For is the entries our own proxies appended
 * (starting with the client's address) and then the address that connected to us; entries further left
 * are the client's own claims and never reach the origin. The protocol is the trusted hop's
 * X-Forwarded-Proto, else the connection's; the TLS version is the trusted hop's X-Forwarded-Tls (`connectionTls`).
 */
export function forwardedOf(
  req: IncomingMessage,
  trust: ProxyTrust,
  host: string,
): { client: string; forwarded: Forwarded; tls: string | null } {
  const socket = req.socket.remoteAddress ?? '';
  const named = clientAddress(req, trust);
  const client = isIP(named) ? named : socket;
  const chain: string[] = [];
  if (trust.trust && client !== socket) {
    const header = req.headers['x-forwarded-for'];
    const entries = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((e) => e.trim());
    chain.push(...entries.slice(-trust.hops).filter(Boolean));
  }
  chain.push(socket);
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const claimed = trust.trust ? first(req.headers['x-forwarded-proto'])?.toLowerCase() : undefined;
  const proto = claimed === 'https' || claimed === 'http' ? claimed : encrypted ? 'https' : 'http';
  // The TLS version the ingress negotiated (infra/caddy/Caddyfile sets X-Forwarded-Tls), from a trusted hop only.
  return { client, forwarded: { for: chain.join(', '), proto, host }, tls: connectionTls(req, trust) };
}
