import { describe, expect, it } from 'vitest';
import { isAllowedAddress, outboundUrlProblem, publicLookup } from '../../../src/core/security/outbound-url.ts';

describe('outbound URLs (alert webhooks)', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.0.10', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:127.0.0.1', false],
    ['93.184.215.14', true],
    ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', true],
    ['not an address', false],
  ])('%s is public: %s', (ip, allowed) => {
    expect(isAllowedAddress(ip, false)).toBe(allowed);
  });

  it('lets tests reach loopback only when told to, and nothing else private', () => {
    expect(isAllowedAddress('127.0.0.1', true)).toBe(true);
    expect(isAllowedAddress('::1', true)).toBe(true);
    expect(isAllowedAddress('10.0.0.1', true)).toBe(false);
    expect(outboundUrlProblem('http://127.0.0.1:8080/hook', true)).toBeNull();
    expect(outboundUrlProblem('http://127.0.0.1:8080/hook', false)).toBe('Give an https:// URL');
    expect(outboundUrlProblem('https://127.0.0.1/hook', false)).toMatch(/public address/);
  });

  it.each([
    ['https://hooks.example.com/unseen', null],
    ['http://hooks.example.com/unseen', /https/],
    ['https://localhost/x', /public host name/],
    ['https://intranet/x', /public host name/],
    ['https://a:b@hooks.example.com/x', /user name and password/],
    ['not a url', /full URL/],
  ])('%s', (url, problem) => {
    const found = outboundUrlProblem(url, false);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it('refuses at connect time a name that resolves to a private address (DNS rebinding)', async () => {
    const lookup = publicLookup(false);
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup('localhost', {}, (e) => resolve(e)));
    expect(err?.code).toBe('ENOTPUBLIC');
    const allowed = await new Promise<unknown>((resolve) =>
      publicLookup(true)('localhost', { family: 4 }, (e, a) => resolve(e ?? a)),
    );
    expect(allowed).toBe('127.0.0.1');
  });
});
