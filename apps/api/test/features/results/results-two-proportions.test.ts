import { describe, expect, it } from 'vitest';
import {
  erfc,
  newcombeInterval,
  normalCdf,
  pooledZTest,
  significant,
  wilson,
} from '../../../src/features/results/two-proportions.ts';
import { pearsonP } from '../../support/chi-square.ts';

// erfc to 20 digits (mpmath, 30-digit arithmetic).
const ERFC: [number, number][] = [
  [-2, 1.9953222650189528],
  [-0.3, 1.3286267594591274],
  [0, 1],
  [0.2, 0.7772974107895215],
  [0.5, 0.4795001221869535],
  [0.75, 0.28884436634648486],
  [1, 0.15729920705028513],
  [2.5, 0.0004069520174449589],
  [4, 1.541725790028002e-8],
  [4.5, 1.9661604415428876e-10],
  [6, 2.1519736712498913e-17],
  [10, 2.088487583762545e-45],
];

// Tables (converted of a, sessions of a, converted of b, sessions of b).
const TABLES: [number, number, number, number][] = [
  [40, 500, 60, 500],
  [8, 100, 12, 100],
  [3, 10, 9, 10],
  [48, 80, 56, 70],
  [120, 2000, 170, 2100],
  [1, 5, 4, 6],
  [700, 10_000, 640, 9_500],
  [5, 50, 5, 50],
];

describe('erfc (Cody)', () => {
  it.each(ERFC)('erfc(%d) to a relative 1e-14', (x, want) => {
    expect(Math.abs(erfc(x) - want) / want).toBeLessThan(1e-14);
  });

  it('Φ is symmetric and 0.975 at 1.959964', () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 15);
    expect(normalCdf(-1.3) + normalCdf(1.3)).toBeCloseTo(1, 15);
  });
});

describe('pooled two-sided z-test', () => {
  it.each(TABLES)('p of %d/%d vs %d/%d equals the Pearson chi-square p to 1e-9', (xa, na, xb, nb) => {
    const { p } = pooledZTest({ x: xa, n: na }, { x: xb, n: nb });
    expect(Math.abs(p - pearsonP(xa, na, xb, nb))).toBeLessThan(1e-9);
  });

  it('a hand-checked value: 40/500 vs 60/500 gives z = 2.108185, p = 0.035015', () => {
    const { z, p } = pooledZTest({ x: 40, n: 500 }, { x: 60, n: 500 });
    expect(z).toBeCloseTo(2.1081851, 6);
    expect(p).toBeCloseTo(0.035015, 6);
  });

  it('p is 1 when the pooled standard error is 0 (no conversions, or all)', () => {
    expect(pooledZTest({ x: 0, n: 10 }, { x: 0, n: 20 }).p).toBe(1);
    expect(pooledZTest({ x: 10, n: 10 }, { x: 20, n: 20 }).p).toBe(1);
  });
});

describe('intervals', () => {
  it("Wilson's interval of 56/70: 0.6918 to 0.8770 (worked by hand from the score formula)", () => {
    const w = wilson({ x: 56, n: 70 });
    expect(w.low).toBeCloseTo(0.6918, 4);
    expect(w.high).toBeCloseTo(0.877, 4);
  });

  it("Newcombe's hybrid score interval matches the published examples (1998, Table II, method 10)", () => {
    // 56/70 − 48/80 = 0.2000: 0.0524 to 0.3339; 9/10 − 3/10 = 0.6: 0.1705 to 0.8090.
    const one = newcombeInterval({ x: 48, n: 80 }, { x: 56, n: 70 });
    expect(one.low).toBeCloseTo(0.0524, 4);
    expect(one.high).toBeCloseTo(0.3339, 4);
    const two = newcombeInterval({ x: 3, n: 10 }, { x: 9, n: 10 });
    expect(two.low).toBeCloseTo(0.1705, 4);
    expect(two.high).toBeCloseTo(0.809, 4);
  });

  it('the interval holds the difference and is reversed when the groups swap', () => {
    const ab = newcombeInterval({ x: 40, n: 500 }, { x: 60, n: 500 });
    const ba = newcombeInterval({ x: 60, n: 500 }, { x: 40, n: 500 });
    expect(ab.low).toBeLessThan(0.04);
    expect(ab.high).toBeGreaterThan(0.04);
    expect(ba.low).toBeCloseTo(-ab.high, 12);
    expect(ba.high).toBeCloseTo(-ab.low, 12);
  });

  it('significant keeps at most six significant digits', () => {
    expect(significant(0.0350149810196625)).toBe(0.035015);
    expect(significant(1.234567891e-9)).toBe(1.23457e-9);
    expect(significant(0)).toBe(0);
  });
});
