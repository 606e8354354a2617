// The scale-out section's lines: a figure on one PostgreSQL and on Citus, measured in the same run, and
// the second as a ratio of the first, with which way is better for it said in words.

export interface Versus {
  name: string;
  unit: 'rows/s' | 'ms' | 's';
  /** The figure on the single PostgreSQL (the baseline). */
  postgres: number;
  citus: number;
  /** Whether more of this figure is better (throughput) or less (latency, duration). */
  better: 'higher' | 'lower';
  note?: string;
}

/** Citus's figure over the baseline's, and whether that is better, worse or the same (within 5 %). */
export function versusRatio(v: Pick<Versus, 'postgres' | 'citus' | 'better'>): { ratio: number; verdict: string } {
  const ratio = v.citus / v.postgres;
  if (!Number.isFinite(ratio)) return { ratio, verdict: 'no ratio' };
  if (Math.abs(ratio - 1) < 0.05) return { ratio, verdict: 'about the same' };
  const improved = v.better === 'higher' ? ratio > 1 : ratio < 1;
  const factor = ratio > 1 ? ratio : 1 / ratio;
  const word = v.better === 'higher' ? (improved ? 'more' : 'less') : improved ? 'faster' : 'slower';
  return { ratio, verdict: `${factor.toFixed(2)}× ${word}` };
}

const figure = (n: number, unit: Versus['unit']) => {
  if (unit === 'rows/s') return Math.round(n).toLocaleString('en');
  return n.toLocaleString('en', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
};

export const VERSUS_HEADER = `${''.padEnd(44)} ${'PostgreSQL'.padStart(12)} ${'Citus'.padStart(12)}   Citus ÷ PostgreSQL`;

export function formatVersus(v: Versus): string {
  const { ratio, verdict } = versusRatio(v);
  const unit = ` ${v.unit}`.padEnd(7);
  return `${v.name.padEnd(44)} ${figure(v.postgres, v.unit).padStart(12)} ${figure(v.citus, v.unit).padStart(12)}${unit} ${ratio.toFixed(2).padStart(5)} (${verdict})${v.note ? `   ${v.note}` : ''}`;
}
