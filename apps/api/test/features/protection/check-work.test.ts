import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/core/hot/index.ts';
import { isHostname, isReturnPath } from '../../../src/features/protection/challenge/return-target.ts';
import { SOLVER_SOURCE } from '../../../src/features/protection/challenge/solver.ts';
import { bitsFor, leadingZeroBits, MAX_BITS, solves, solvesPart } from '../../../src/features/protection/challenge/work.ts';
import { failedCheckKey, failedChecks, noteFailedCheck, visitorCodeOf } from '../../../src/features/protection/failed-checks.ts';
import { solve } from '../../support/check.ts';

describe('check work: difficulty', () => {
  it.each([
    [0, 0, 12],
    [25, 0, 14],
    [35, 0, 15],
    [50, 0, 16],
    [75, 0, 18],
    [100, 0, 20],
    [0, 1, 14],
    [100, 1, 22],
    [100, 2, 24],
    [100, 9, 24],
    [-5, 0, 12],
    [500, 0, 20],
    [Number.NaN, Number.NaN, 12],
  ])('risk %d with %d failed checks asks for %d zero bits', (risk, failed, bits) => {
    expect(bitsFor(risk, failed)).toBe(bits);
  });

  it('never asks more than MAX_BITS', () => {
    expect(MAX_BITS).toBe(24);
  });
});

describe('check work: the browser’s SHA-256 finds what Node checks', () => {
  const usWork = new Function(`${SOLVER_SOURCE}; return usWork;`)() as (
    c: string,
    bits: number,
  ) => (from: number, count: number) => number;

  it.each([1, 4, 8, 12, 14])('finds the first nonce with %d zero bits, as Node’s SHA-256 counts them', (bits) => {
    for (let k = 0; k < 5; k++) {
      const c = randomBytes(24).toString('base64url');
      const n = usWork(c, bits)(0, 2 ** 24);
      const hex = n.toString(16).padStart(8, '0');
      expect(solvesPart(c, hex, bits)).toBe(true);
      for (let m = 0; m < n; m++) expect(solvesPart(c, m.toString(16).padStart(8, '0'), bits)).toBe(false);
    }
  });

  it('counts leading zero bits over byte edges', () => {
    expect(leadingZeroBits(Uint8Array.from([0, 0, 0x10, 0xff]))).toBe(19);
    expect(leadingZeroBits(Uint8Array.from([0x80]))).toBe(0);
    expect(leadingZeroBits(new Uint8Array(4))).toBe(32);
    const d = createHash('sha256').update('x').digest();
    expect(leadingZeroBits(d)).toBeGreaterThanOrEqual(0);
  });

  it('takes eight distinct nonces, ascending, each with bits - 3 zero bits', () => {
    const c = randomBytes(24).toString('base64url');
    const answer = solve(c, 14);
    expect(solves(c, answer, 14)).toBe(true);
    const parts = answer.match(/.{8}/g) as string[];
    expect(solves(c, [...parts].reverse().join(''), 14)).toBe(false);
    expect(solves(c, [parts[0], ...parts.slice(0, 7)].join(''), 14)).toBe(false);
    expect(solves(c, parts.slice(0, 7).join(''), 14)).toBe(false);
    expect(solves(c, answer, 24)).toBe(false);
    expect(solves(c, answer.toUpperCase(), 14)).toBe(false);
  });
});

describe('check page: where it may send a browser', () => {
  it.each(['/', '/a/b?c=d&e=%2F%2F', '/%2F%2Fevil.example', '/search?q=a:b@c', '/~user/#frag'])('accepts the path %j', (p) => {
    expect(isReturnPath(p)).toBe(true);
  });
  it.each([
    '',
    'a',
    '//evil.example',
    '///evil.example',
    '/\\evil.example',
    '/a\\b',
    'https://evil.example',
    'javascript:alert(1)',
    '/\t/evil.example',
    '/\n/evil.example',
    '/ /evil',
    '/café',
    `/${'a'.repeat(4096)}`,
  ])('refuses the path %j', (p) => {
    expect(isReturnPath(p)).toBe(false);
  });
  it('accepts DNS names only', () => {
    expect(isHostname('shop.example.com')).toBe(true);
    for (const h of [
      'Shop.example.com',
      'shop.example.com.',
      'shop.example.com:443',
      'a..b',
      '-a.b',
      '[::1]',
      'a/b',
      '',
      'a b',
    ]) {
      expect(isHostname(h)).toBe(false);
    }
  });
});

describe('failed checks (behaviour memory)', () => {
  it('counts per site and visitor code for a day, never keyed by address or user agent', async () => {
    const hot = new MemoryStore();
    const deps = { hot, env: { BEHAVIOUR_VISITORS_PER_SITE: 10_000, BEHAVIOUR_VISITORS_PER_NODE: 200_000 } };
    const site = 'a2b0c6a4-0000-4000-8000-000000000001';
    const ip = '192.0.2.55';
    const ua = 'Mozilla/5.0 test';
    expect(await noteFailedCheck(deps, site, ip, ua)).toBe(1);
    expect(await noteFailedCheck(deps, site, ip, ua)).toBe(2);
    const code = await visitorCodeOf(deps, site, ip, ua);
    expect(await failedChecks(deps, site, code)).toBe(2);
    expect(await failedChecks(deps, 'another-site', code)).toBe(0);
    expect(await failedChecks(deps, site, await visitorCodeOf(deps, site, '192.0.2.56', ua))).toBe(0);
    const key = failedCheckKey(site, code);
    expect(key).toMatch(/^bm-failed:\{[^:]+\}:[A-Za-z0-9_-]{16}$/);
    expect(key).not.toContain(ip);
    const ttl = await hot.ttl(key);
    expect(ttl).toBeGreaterThan(86_000);
    expect(ttl).toBeLessThanOrEqual(86_400);
  });

  it('remembers at most the site’s bound of visitors, those with the most failures', async () => {
    const hot = new MemoryStore();
    const deps = { hot, env: { BEHAVIOUR_VISITORS_PER_SITE: 10, BEHAVIOUR_VISITORS_PER_NODE: 200_000 } };
    const site = 'a2b0c6a4-0000-4000-8000-000000000002';
    const ua = 'Mozilla/5.0 test';
    for (let i = 0; i < 3; i++) await noteFailedCheck(deps, site, '192.0.2.1', ua);
    for (let i = 0; i < 100; i++) await noteFailedCheck(deps, site, `198.51.100.${i}`, ua);
    expect(await failedChecks(deps, site, await visitorCodeOf(deps, site, '192.0.2.1', ua))).toBe(3);
    let remembered = 0;
    for (let i = 0; i < 100; i++) {
      if (await failedChecks(deps, site, await visitorCodeOf(deps, site, `198.51.100.${i}`, ua))) remembered += 1;
    }
    expect(remembered).toBe(9);
    // A failure not remembered still counts as one for the page it answers.
    expect(await noteFailedCheck(deps, site, '203.0.113.9', ua)).toBeGreaterThanOrEqual(1);
  });
});
