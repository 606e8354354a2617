// The TLS version of the connection that brought a request (connectionTls): this node's own TLS socket when it
// terminates TLS, the trusted hop's X-Forwarded-Tls behind a proxy, nothing for plain HTTP.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionTls } from '../../../src/faces/collect/connection-tls.ts';
import type { ProxyTrust } from '../../../src/faces/collect/exchange.ts';

/** A self-signed certificate for 127.0.0.1, made by openssl for this run. */
function selfSigned(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(path.join(tmpdir(), 'us-tls-'));
  try {
    const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-days',
        '1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A server answering each request with what `connectionTls` says of it under `trust`. */
function answering(make: (handler: (req: IncomingMessage, res: ServerResponse) => void) => Server) {
  let trust: ProxyTrust = { trust: false, hops: 1 };
  const server = make((req, res) => res.end(JSON.stringify(connectionTls(req, trust))));
  return {
    server,
    trusting(t: ProxyTrust) {
      trust = t;
    },
    port: () => (server.address() as AddressInfo).port,
  };
}

const listen = (s: Server) => new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
const close = (s: Server) => new Promise<void>((r) => s.close(() => r()));

describe('connectionTls', () => {
  const { key, cert } = selfSigned();
  const tlsNode = answering((h) => createHttpsServer({ key, cert, minVersion: 'TLSv1.2' }, h));
  const plainNode = answering((h) => createHttpServer(h));

  beforeAll(async () => {
    await listen(tlsNode.server);
    await listen(plainNode.server);
  });
  afterAll(async () => {
    await close(tlsNode.server);
    await close(plainNode.server);
  });

  const ask = (secure: boolean, headers: Record<string, string> = {}, maxVersion?: 'TLSv1.2' | 'TLSv1.3') =>
    new Promise<string | null>((resolve, reject) => {
      const port = secure ? tlsNode.port() : plainNode.port();
      const done = (res: IncomingMessage) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve(JSON.parse(body)));
      };
      const req = secure
        ? httpsRequest({ host: '127.0.0.1', port, ca: cert, headers, maxVersion, agent: false }, done)
        : httpRequest({ host: '127.0.0.1', port, headers, agent: false }, done);
      req.once('error', reject);
      req.end();
    });

  it("reads this node's own TLS socket when it terminates TLS", async () => {
    expect(await ask(true)).toBe('TLSv1.3');
    expect(await ask(true, {}, 'TLSv1.2')).toBe('TLSv1.2');
  });

  it('answers null for plain HTTP, and never reads a client header when no proxy is trusted', async () => {
    expect(await ask(false)).toBeNull();
    expect(await ask(false, { 'x-forwarded-tls': 'TLSv1.3' })).toBeNull();
    // A client claiming an older version over this node's own TLS is not believed either.
    expect(await ask(true, { 'x-forwarded-tls': 'TLSv1.0' })).toBe('TLSv1.3');
  });

  it("takes the trusted hop's X-Forwarded-Tls (Caddy's tls1.3, nginx's TLSv1.2), keeping only known versions", async () => {
    plainNode.trusting({ trust: true, hops: 1 });
    try {
      expect(await ask(false, { 'x-forwarded-tls': 'tls1.3' })).toBe('TLSv1.3');
      expect(await ask(false, { 'x-forwarded-tls': 'TLSv1.2' })).toBe('TLSv1.2');
      expect(await ask(false, { 'x-forwarded-tls': 'JA3=771,4865-4866' })).toBeNull();
      expect(await ask(false)).toBeNull();
    } finally {
      plainNode.trusting({ trust: false, hops: 1 });
    }
  });
});
