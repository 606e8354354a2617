// An independent check of the experiment p-values: the uncorrected Pearson chi-square test of a 2×2
// table, which for two proportions equals the pooled two-sided z-test (chi² = z²).

/**
 * The upper tail of chi-square with 1 degree of freedom, Q(1/2, x/2), by the regularized incomplete
 * gamma function (series below a + 1, Lentz's continued fraction above; Numerical Recipes §6.2):
 * written here so the test does not share a line of code with the z-test it checks.
 */
function lnGamma(x: number): number {
  // Lanczos (g = 7, n = 9).
  const g = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406, 12.507343278686905,
    -0.13857109526572012, 0.000009984369578019572, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = g[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (g[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

function upperGammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const lead = Math.exp(-x + a * Math.log(x) - lnGamma(a));
  if (x < a + 1) {
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 500; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-17) break;
    }
    return 1 - sum * lead;
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 500; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return lead * h;
}

/** p of the uncorrected Pearson chi-square test of a 2×2 table (successes/trials per group). */
export function pearsonP(x1: number, n1: number, x2: number, n2: number): number {
  const cells = [
    [x1, n1 - x1],
    [x2, n2 - x2],
  ];
  const rows = [n1, n2];
  const cols = [x1 + x2, n1 + n2 - x1 - x2];
  const total = n1 + n2;
  let chi = 0;
  for (let r = 0; r < 2; r++) {
    for (let c = 0; c < 2; c++) {
      const expected = ((rows[r] as number) * (cols[c] as number)) / total;
      chi += ((cells[r]?.[c] as number) - expected) ** 2 / expected;
    }
  }
  return upperGammaQ(0.5, chi / 2);
}
