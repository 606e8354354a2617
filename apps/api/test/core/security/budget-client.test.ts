import { describe, expect, it } from 'vitest';
import { budgetClient } from '../../../src/core/security/client-info.ts';

describe('budgetClient: whom a budget per address counts', () => {
  it('an IPv4 address is itself, also when written IPv4-mapped', () => {
    expect(budgetClient('203.0.113.7')).toBe('203.0.113.7');
    expect(budgetClient('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(budgetClient('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(budgetClient('0:0:0:0:0:ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('every IPv6 address of one /64 is one client, however written; the next /64 is another', () => {
    const one = budgetClient('2001:db8:1:2::1');
    expect(budgetClient('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(one);
    expect(budgetClient('2001:0DB8:0001:0002:0:0:0:9')).toBe(one);
    expect(budgetClient('2001:db8:1:3::1')).not.toBe(one);
    expect(budgetClient('2001:db8:2:2::1')).not.toBe(one);
  });

  it('what is no address is counted as it is', () => {
    expect(budgetClient('unknown')).toBe('unknown');
    expect(budgetClient('')).toBe('');
  });
});
