import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { forwardedOf } from '../../../src/faces/proxy/forwarded.ts';

const request = (headers: Record<string, string>, remoteAddress = '10.0.0.9') =>
  ({ headers, socket: { remoteAddress } }) as unknown as IncomingMessage;

describe('who asked, as the proxy tells the gate and the origin', () => {
  const behindCaddy = { trust: true, hops: 1 };
  const direct = { trust: false, hops: 1 };

  it('takes the client and the TLS version from the ingress only when the operator trusts it', () => {
    const req = request({ 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-tls': 'tls1.3' });
    expect(forwardedOf(req, behindCaddy, 'shop.example')).toEqual({
      client: '203.0.113.7',
      forwarded: { for: '203.0.113.7, 10.0.0.9', proto: 'https', host: 'shop.example' },
      tls: 'TLSv1.3',
    });
  });

  it("a client's own X-Forwarded-* says nothing without TRUST_PROXY", () => {
    const req = request({ 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-tls': 'tls1.3' });
    expect(forwardedOf(req, direct, 'shop.example')).toEqual({
      client: '10.0.0.9',
      forwarded: { for: '10.0.0.9', proto: 'http', host: 'shop.example' },
      tls: null,
    });
  });

  it('keeps only a TLS version from the closed list: no fingerprint passes as one', () => {
    const req = request({ 'x-forwarded-for': '203.0.113.7', 'x-forwarded-tls': 't13d1516h2_8daaf6152771_02713d6af862' });
    expect(forwardedOf(req, behindCaddy, 'shop.example').tls).toBeNull();
  });
});
