// Two proportions compared: the pooled two-sided z-test and Newcombe's hybrid score interval of the
// difference (Newcombe 1998, method 10: Wilson score intervals of each rate combined). Pure functions.

/**
 * erfc(x) by W. J. Cody's rational Chebyshev approximations ("Rational Chebyshev approximations for
 * the error function", Math. Comp. 1969; the CALERF routine of SPECFUN): relative error below 1e-15
 * on each of the three intervals |x| ≤ 0.5, ≤ 4 and > 4.
 */
const A = [3.1611237438705655, 113.86415415105016, 377.485237685302, 3209.3775891384694, 0.18577770618460315];
const B = [23.601290952344122, 244.02463793444417, 1282.6165260773723, 2844.236833439171];
const C = [
  0.5641884969886701, 8.883149794388377, 66.11919063714163, 298.6351381974001, 881.952221241769, 1712.0476126340707,
  2051.0783778260716, 1230.3393547979972, 2.1531153547440383e-8,
];
const D = [
  15.744926110709835, 117.6939508913125, 537.1811018620099, 1621.3895745666903, 3290.7992357334597, 4362.619090143247,
  3439.3676741437216, 1230.3393548037495,
];
const P = [
  0.30532663496123236, 0.36034489994980445, 0.12578172611122926, 0.016083785148742275, 0.0006587491615298378,
  0.016315387137302097,
];
const Q = [2.568520192289822, 1.8729528499234673, 0.5279051029514285, 0.06051834131244132, 0.0023352049762686918];
const ONE_OVER_SQRT_PI = 0.5641895835477563;

const c = (list: number[], i: number) => list[i] as number;

/** exp(-y²) computed in two parts, so the rounding of y² does not cost accuracy for large y. */
function expMinusSquare(y: number): number {
  const ysq = Math.trunc(y * 16) / 16;
  const del = (y - ysq) * (y + ysq);
  return Math.exp(-ysq * ysq) * Math.exp(-del);
}

/** erfc(y) for y ≥ 0. */
function erfcNonNegative(y: number): number {
  if (y <= 0.5) {
    const ysq = y * y;
    let num = c(A, 4) * ysq;
    let den = ysq;
    for (let i = 0; i < 3; i++) {
      num = (num + c(A, i)) * ysq;
      den = (den + c(B, i)) * ysq;
    }
    return 1 - (y * (num + c(A, 3))) / (den + c(B, 3));
  }
  if (y <= 4) {
    let num = c(C, 8) * y;
    let den = y;
    for (let i = 0; i < 7; i++) {
      num = (num + c(C, i)) * y;
      den = (den + c(D, i)) * y;
    }
    return expMinusSquare(y) * ((num + c(C, 7)) / (den + c(D, 7)));
  }
  if (y >= 26.6) return 0; // below the smallest double
  const ysq = 1 / (y * y);
  let num = c(P, 5) * ysq;
  let den = ysq;
  for (let i = 0; i < 4; i++) {
    num = (num + c(P, i)) * ysq;
    den = (den + c(Q, i)) * ysq;
  }
  const r = (ysq * (num + c(P, 4))) / (den + c(Q, 4));
  return expMinusSquare(y) * ((ONE_OVER_SQRT_PI - r) / y);
}

/** The complementary error function. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  return x >= 0 ? erfcNonNegative(x) : 2 - erfcNonNegative(-x);
}

/** Φ(x), the standard normal distribution function. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** Two-sided tail 2·(1 − Φ(|z|)) = erfc(|z|/√2), without the cancellation of 1 − Φ. */
export function twoSidedP(z: number): number {
  return Math.min(1, erfc(Math.abs(z) / Math.SQRT2));
}

export interface Proportion {
  /** Successes. */
  x: number;
  /** Trials (> 0). */
  n: number;
}

/**
 * Pooled two-sided z-test of H0: both rates equal. p̂ = (x_a + x_b)/(n_a + n_b),
 * z = (r_b − r_a) / sqrt(p̂(1 − p̂)(1/n_a + 1/n_b)); p = 1 when that standard error is 0.
 */
export function pooledZTest(a: Proportion, b: Proportion): { z: number; p: number } {
  const pooled = (a.x + b.x) / (a.n + b.n);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.n + 1 / b.n));
  if (!(se > 0)) return { z: 0, p: 1 };
  const z = (b.x / b.n - a.x / a.n) / se;
  return { z, p: twoSidedP(z) };
}

/** z of a two-sided 95 % interval: Φ⁻¹(0.975). */
export const Z95 = 1.959963984540054;

/** Wilson's score interval of one rate. */
export function wilson(pr: Proportion, z = Z95): { low: number; high: number } {
  const p = pr.x / pr.n;
  const z2 = z * z;
  const denom = 1 + z2 / pr.n;
  const centre = (p + z2 / (2 * pr.n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / pr.n + z2 / (4 * pr.n * pr.n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Newcombe's hybrid score interval of r_b − r_a: with Wilson intervals (l, u) of each rate,
 * low = d − sqrt((r_b − l_b)² + (u_a − r_a)²), high = d + sqrt((u_b − r_b)² + (r_a − l_a)²).
 */
export function newcombeInterval(a: Proportion, b: Proportion, z = Z95): { low: number; high: number } {
  const ra = a.x / a.n;
  const rb = b.x / b.n;
  const wa = wilson(a, z);
  const wb = wilson(b, z);
  const d = rb - ra;
  return {
    low: d - Math.sqrt((rb - wb.low) ** 2 + (wa.high - ra) ** 2),
    high: d + Math.sqrt((wb.high - rb) ** 2 + (ra - wa.low) ** 2),
  };
}

/** At most `digits` significant digits. */
export function significant(n: number, digits = 6): number {
  return n === 0 ? 0 : Number(n.toPrecision(digits));
}

/** Rounded to `digits` decimals. */
/** A proportion as the API states every rate: a percent (stats and journeys alike), two decimals here. */
export const asPercent = (fraction: number) => decimals(fraction * 100, 2);

export function decimals(n: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
