import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { tlsVersionOf } from '../../features/protection/tls.ts';
import type { ProxyTrust } from './exchange.ts';

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();

/**
 * The TLS version of the connection that brought a request, as far as the service can know it: the trusted
 * hop's `X-Forwarded-Tls` (TRUST_PROXY: the ingress in front, infra/caddy/Caddyfile, sets it on every request
 * and replaces whatever a client sent), else this node's own TLS socket when it terminates TLS itself, else
 * null (plain HTTP, or a hop that said nothing). A header from a client when no proxy is trusted is never read.
 * Only a known version's name is kept (`tlsVersionOf`).
 */
export function connectionTls(req: IncomingMessage, trust: ProxyTrust): string | null {
  if (trust.trust) {
    const forwarded = tlsVersionOf(first(req.headers['x-forwarded-tls']));
    if (forwarded) return forwarded;
  }
  const socket = req.socket as Partial<TLSSocket>;
  if (socket.encrypted === true && typeof socket.getProtocol === 'function') return tlsVersionOf(socket.getProtocol());
  return null;
}
