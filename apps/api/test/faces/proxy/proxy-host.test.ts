import { describe, expect, it } from 'vitest';
import { proxyHostOf } from '../../../src/faces/proxy/host.ts';

// The Host header names the hostname looked up, and (as sent) the visitor's host to the origin and in rewritten
// redirects. Junk after its port was dropped for the lookup but passed on: a redirect to `victim.example:@evil.com`
// takes a browser to evil.com.
describe("a proxied request's Host", () => {
  it('is a hostname, with a port of digits at most', () => {
    expect(proxyHostOf('Shop.Example.')).toBe('shop.example');
    expect(proxyHostOf('shop.example:8443')).toBe('shop.example');
    for (const junk of [
      'shop.example:@evil.com',
      'shop.example:80/x',
      'shop.example:',
      'shop.example:123456',
      '[::1]:8080',
      '[::1]',
      '10.0.0.1',
      'localhost',
    ]) {
      expect(proxyHostOf(junk), junk).toBeNull();
    }
    expect(proxyHostOf(undefined)).toBeNull();
  });
});
