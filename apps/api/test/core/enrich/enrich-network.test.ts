import { isHostingNetwork } from '@us/protection';
import { describe, expect, it } from 'vitest';
import { countryOf } from '../../../src/core/enrich/geo.ts';
import { enrich } from '../../../src/core/enrich/index.ts';
import { normalizeIp, parseIp } from '../../../src/core/enrich/ip.ts';
import { networkOf } from '../../../src/core/enrich/network.ts';

describe('enrich: address parsing', () => {
  it('parses IPv4, IPv6, embedded and mapped forms', () => {
    expect(parseIp('1.2.3.4')).toEqual({ v: 4, n: 0x01020304 });
    expect(parseIp('::ffff:1.2.3.4')).toEqual({ v: 4, n: 0x01020304 });
    expect(parseIp('::ffff:102:304')).toEqual({ v: 4, n: 0x01020304 });
    expect(parseIp('2001:db8::1')).toEqual({ v: 6, hi: 0x20010db800000000n, lo: 1n });
    expect(parseIp('::')).toEqual({ v: 6, hi: 0n, lo: 0n });
    expect(parseIp('64:ff9b::1.2.3.4')).toEqual({ v: 6, hi: 0x0064ff9b00000000n, lo: 0x01020304n });
    expect(parseIp('not an ip')).toBeNull();
    expect(parseIp('')).toBeNull();
    expect(parseIp(undefined)).toBeNull();
  });
  it('gives the text form the country lookup reads: plain IPv4 as it is, mapped IPv4 unwrapped', () => {
    expect(normalizeIp('8.8.8.8')).toBe('8.8.8.8');
    expect(normalizeIp('::ffff:8.8.8.8')).toBe('8.8.8.8');
    expect(normalizeIp('::ffff:808:808')).toBe('8.8.8.8');
    expect(normalizeIp('2001:db8::1%eth0')).toBe('2001:db8::1');
    expect(normalizeIp('08.8.8.8')).toBeNull();
    expect(normalizeIp('8.8.8')).toBeNull();
    expect(normalizeIp('')).toBeNull();
  });
});

describe('enrich: country', () => {
  it('finds countries for IPv4, IPv6 and IPv4-mapped IPv6', () => {
    expect(countryOf('8.8.8.8')).toBe('US');
    expect(countryOf('2001:4860:4860::8888')).toBe('US');
    expect(countryOf('::ffff:8.8.8.8')).toBe('US');
  });
  it('returns null for private, reserved and malformed addresses', () => {
    expect(countryOf('10.0.0.1')).toBeNull();
    expect(countryOf('127.0.0.1')).toBeNull();
    expect(countryOf('::1')).toBeNull();
    expect(countryOf('bogus')).toBeNull();
    expect(countryOf(null)).toBeNull();
  });
});

describe('enrich: network', () => {
  it('8.8.8.8 is Google AS15169', () => {
    expect(networkOf('8.8.8.8')).toEqual({ asn: 15169, org: expect.stringMatching(/Google/) });
  });
  it('1.1.1.1 is Cloudflare AS13335, not hosting', () => {
    const net = networkOf('1.1.1.1');
    expect(net).toEqual({ asn: 13335, org: expect.stringMatching(/Cloudflare/) });
    expect(isHostingNetwork(net)).toBe(false);
  });
  it('AWS addresses are AS16509 and hosting', () => {
    for (const ip of ['3.5.140.1', '52.95.110.1']) {
      const net = networkOf(ip);
      expect(net?.asn).toBe(16509);
      expect(isHostingNetwork(net)).toBe(true);
    }
  });
  it('IPv6 and IPv4-mapped lookups', () => {
    expect(networkOf('2001:4860:4860::8888')?.asn).toBe(15169);
    expect(networkOf('::ffff:1.1.1.1')?.asn).toBe(13335);
    expect(networkOf('2606:4700:4700::1111')?.asn).toBe(13335);
  });
  it('private and malformed addresses have no network', () => {
    expect(networkOf('10.0.0.1')).toBeNull();
    expect(networkOf('192.168.1.1')).toBeNull();
    expect(networkOf('fe80::1')).toBeNull();
    expect(networkOf('nope')).toBeNull();
  });
  it('hosting by ASN list and by organisation name only', () => {
    expect(isHostingNetwork({ asn: 24940, org: 'Hetzner Online GmbH' })).toBe(true);
    expect(isHostingNetwork({ asn: 4242424242, org: 'Example Hosting Ltd' })).toBe(true);
    expect(isHostingNetwork({ asn: 4242424241, org: 'Example VPS Data Center' })).toBe(true);
    expect(isHostingNetwork({ asn: 3320, org: 'Deutsche Telekom AG' })).toBe(false);
    expect(isHostingNetwork({ asn: 4242424240, org: 'Observer Networks' })).toBe(false);
    expect(isHostingNetwork(null)).toBe(false);
  });
});

describe('enrich()', () => {
  it('combines the lookups', () => {
    const r = enrich({
      ip: '8.8.8.8',
      ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      width: 1440,
    });
    expect(r).toEqual({
      country: 'US',
      asn: 15169,
      asOrg: expect.stringMatching(/Google/),
      hosting: false,
      device: 'desktop',
      browser: 'Chrome',
      browserMajor: 131,
      os: 'Windows',
      // Windows 10 and 11 both say "Windows NT 10.0": no version rather than a guess.
      osMajor: null,
      kind: 'browser',
      bot: null,
      automation: [],
    });
  });
  it('private address gives nulls', () => {
    const r = enrich({ ip: '10.0.0.1', ua: 'curl/8.4.0' });
    expect(r).toMatchObject({ country: null, asn: null, asOrg: null, hosting: false, device: 'bot', kind: 'browser' });
    expect(r.automation).toContain('no-script-client');
    expect(r.bot?.category).toBe('tool');
  });
  it('trusted edge values replace local lookups', () => {
    const r = enrich({ ip: '10.0.0.1', ua: '', known: { country: 'de', asn: 16509, asOrg: 'Amazon.com, Inc.' } });
    expect(r).toMatchObject({ country: 'DE', asn: 16509, asOrg: 'Amazon.com, Inc.', hosting: true });
  });
  it('never returns the address or the user agent', () => {
    const ua = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    const s = JSON.stringify(enrich({ ip: '66.249.66.1', ua }));
    expect(s).not.toContain('66.249.66.1');
    expect(s).not.toContain(ua);
  });
});
