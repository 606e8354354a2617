import { PageReport } from '@us/shared';
import { describe, expect, it } from 'vitest';
import { pageReportAtOnce } from '../../../src/faces/collect/report-check.ts';

// The hand check must never accept what the schema refuses, nor answer differently from it: every
// field of every kind of report is set to each of its edge values below and both are asked.

const KEY = `pk_${'a1'.repeat(13)}`;
const base = { k: KEY, u: 'https://example.com/pricing?utm_source=x', id: 'pageview0001' };
const reports: Record<string, Record<string, unknown>> = {
  pv: { ...base, t: 'pv', r: 'https://www.google.com/', w: 1440, l: 'en-US', z: 'Europe/Berlin', n: 1 },
  leave: { ...base, t: 'leave', s: 50, d: 12_000, i: 1 },
  ev: { ...base, t: 'ev', e: 'signup', el: 'pro', ev: 12.5 },
  c: { ...base, t: 'c', e: 'buy-button' },
};

const anyValue: unknown[] = [undefined, null, true, 0, -0, 1, -1, 0.5, '', 'x', [], {}, ['a'], { a: 'b' }];
const lengths = (n: number) => ['a'.repeat(n - 1), 'a'.repeat(n), 'a'.repeat(n + 1)];
const ints = (min: number, max: number) => [min - 1, min, min + 0.5, max, max + 1, String(min)];

const edges: Record<string, unknown[]> = {
  t: ['pv', 'leave', 'ev', 'c', 'PV', 'other'],
  k: [KEY, KEY.toUpperCase(), `${KEY}a`, KEY.slice(0, -1), ` ${KEY}`, 'pk_'],
  u: [
    'https://example.com/',
    'http://localhost:3000/a b',
    ' https://example.com/',
    'https://example.com/ ',
    'https://exa\tmple.com/',
    'https://example.com/\n',
    '\u00a0https://example.com/',
    'https://example.com/\ufeff',
    'not a url',
    '/relative',
    'mailto:someone@example.com',
    `https://example.com/${'p'.repeat(2048 - 20)}`,
    `https://example.com/${'p'.repeat(2048 - 19)}`,
    `https://example.com/${'p'.repeat(2048)}`,
  ],
  id: ['abcdefgh', 'abcdefg', 'a'.repeat(32), 'a'.repeat(33), 'abc def gh', 'abc-def_gh', 'abcdéfgh'],
  m: [...lengths(512), 'mark'],
  r: [...lengths(2048), 'https://www.google.com/'],
  w: ints(0, 100_000),
  l: lengths(35),
  z: lengths(64),
  n: ints(1, 100_000),
  p: [...lengths(64), 'blog'],
  j: [1, 0, 2, '1'],
  x: [
    { 'exp-1': 'a', exp_2: 'b' },
    { '1': 'a', b: 'c' },
    { Exp: 'a' },
    { '': 'a' },
    { ['e'.repeat(64)]: 'a' },
    { ['e'.repeat(65)]: 'a' },
    { exp: '' },
    { exp: '\u0001' },
    { exp: ' \t' },
    { exp: 'v'.repeat(64) },
    { exp: 'v'.repeat(65) },
    { exp: 1 },
    JSON.parse('{"__proto__": "a"}'),
    JSON.parse('{"constructor": "a"}'),
    Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`exp${i}`, 'a'])),
  ],
  s: ints(0, 100),
  d: ints(0, 86_400_000),
  i: [0, 1, 2, true, '1'],
  e: [...lengths(128), ...lengths(2048), '   ', '\u0001', 'a\nb'],
  el: lengths(256),
  ev: [-1e9, 1e12, 0.001],
  // Properties of any shape pass as they are: they are cleaned when rows are built (cleanProperties).
  pr: [{ plan: 'pro', seats: 3 }, 'plan', [1], null, { ['k'.repeat(65)]: 'v'.repeat(300) }],
  pd: [{ site: KEY, exp: 'a:b', propPlan: 'pro' }, 'x', [], null],
  extra: ['unknown field'],
};

/** Each candidate as the JSON text a sender could post. */
function candidates(): string[] {
  const out = ['null', '[]', '"pv"', '42', '{}', '{"t":"pv"}'];
  for (const report of Object.values(reports)) {
    out.push(JSON.stringify(report));
    for (const [field, values] of Object.entries(edges)) {
      for (const v of [...values, ...anyValue]) {
        const c = { ...report } as Record<string, unknown>;
        if (v === undefined) delete c[field];
        else c[field] = v;
        out.push(JSON.stringify(c));
      }
      // Numbers JSON.stringify cannot write: JSON.parse reads 1e999 as Infinity.
      for (const big of ['1e999', '-1e999']) out.push(JSON.stringify({ ...report, [field]: '@' }).replace('"@"', big));
    }
  }
  return out;
}

describe('pageReportAtOnce', () => {
  it('answers as the schema does, or leaves the report to it', () => {
    let atOnce = 0;
    let checked = 0;
    for (const text of candidates()) {
      // Each side reads its own copy, as a report arrives (`__proto__` keys stay own keys).
      const byHand = pageReportAtOnce(JSON.parse(text));
      const bySchema = PageReport.safeParse(JSON.parse(text));
      checked++;
      if (byHand === undefined) continue;
      atOnce++;
      expect(bySchema.success, text).toBe(true);
      expect(byHand, text).toStrictEqual(bySchema.data);
    }
    expect(checked).toBeGreaterThan(1500);
    // Most candidates are one edge away from a valid report: the hand check must take a good share.
    expect(atOnce).toBeGreaterThan(checked / 3);
  });

  it('takes the page script’s usual reports without the schema', () => {
    for (const t of ['pv', 'leave', 'ev']) expect(pageReportAtOnce(reports[t])).toBeDefined();
    expect(pageReportAtOnce({ ...reports.pv, p: 'blog', j: 1, m: 'mark', x: { 'pricing-2026': 'b' } })).toStrictEqual({
      ...reports.pv,
      p: 'blog',
      j: 1,
      m: 'mark',
      x: { 'pricing-2026': 'b' },
    });
  });

  it('drops fields the schema does not know, as the schema does', () => {
    expect(pageReportAtOnce({ ...reports.leave, extra: 1, r: 'x' })).toStrictEqual(reports.leave);
  });

  it('leaves to the schema what it would change or refuse', () => {
    expect(pageReportAtOnce({ ...reports.pv, u: ' https://example.com/' })).toBeUndefined();
    expect(pageReportAtOnce({ ...reports.pv, x: JSON.parse('{"__proto__": "a"}') })).toBeUndefined();
    expect(pageReportAtOnce(reports.c)).toBeUndefined();
    expect(pageReportAtOnce({ ...reports.pv, w: 1.5 })).toBeUndefined();
  });
});
