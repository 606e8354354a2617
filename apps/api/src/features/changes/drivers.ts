// The arithmetic of "What changed?": per dimension the values of both periods merged, each value's change,
// the values that moved most across dimensions, and each change said in words.
import { CHANGE_LIMITS, type ChangeDriver } from '@us/shared';

export interface DimensionFigures {
  dimension: string;
  label: string;
  /** value → count, per period (the largest values only: a value missing from one counts 0 there). */
  current: Map<string | null, number>;
  previous: Map<string | null, number>;
}

export type ChangeUnit = { one: string; many: string };

const signed = (n: number) => `${n > 0 ? '+' : n < 0 ? '−' : '±'}${Math.abs(n).toLocaleString('en-US')}`;

/** How a value reads after the count: "from google", "starting on /pricing", "with no source". */
export function phrase(dimension: string, value: string | null, entry: boolean): string {
  if (value === null || value === '') {
    return dimension === 'source' || dimension === 'referrer' ? 'with no source (direct)' : `with no ${dimension}`;
  }
  switch (dimension) {
    case 'source':
    case 'referrer':
      return `from ${value}`;
    case 'campaign':
      return `from campaign ${value}`;
    case 'medium':
      return `with medium ${value}`;
    case 'page':
      return entry ? `starting on ${value}` : `on ${value}`;
    case 'country':
      return `from country ${value}`;
    case 'device':
      return `on ${value} devices`;
    default:
      return `with ${dimension} ${value}`;
  }
}

/** Both periods' totals. */
export interface Totals {
  current: number;
  previous: number;
}

/**
 * Each value's change in each dimension, with its share of the total change (percent, null when it is 0). A
 * value holding all of both periods (every visit from one country) splits nothing and explains nothing:
 * left out.
 */
export function changesOf(dims: readonly DimensionFigures[], totals: Totals, unit: ChangeUnit, entry: boolean): ChangeDriver[] {
  const total = totals.current - totals.previous;
  return dims.flatMap((d) => {
    const values = new Set([...d.current.keys(), ...d.previous.keys()]);
    return [...values].flatMap((value) => {
      const current = d.current.get(value) ?? 0;
      const previous = d.previous.get(value) ?? 0;
      if (current === totals.current && previous === totals.previous) return [];
      const change = current - previous;
      const driver: ChangeDriver = {
        dimension: d.dimension,
        label: d.label,
        value,
        current,
        previous,
        change,
        share: total === 0 ? null : Math.round((change / total) * 1000) / 10,
        sentence: `${signed(change)} ${Math.abs(change) === 1 ? unit.one : unit.many} ${phrase(d.dimension, value, entry)}`,
      };
      return [driver];
    });
  });
}

/**
 * The values that moved most, largest change first; ties go to a value over none, then to the dimension
 * listed first in `order` (where traffic came from before what it looked like), then by value, so answers are stable.
 */
export function topDrivers(all: readonly ChangeDriver[], order: readonly string[]): ChangeDriver[] {
  const rank = (c: ChangeDriver) => order.indexOf(c.dimension);
  return all
    .filter((c) => c.change !== 0)
    .sort(
      (a, b) =>
        Math.abs(b.change) - Math.abs(a.change) ||
        Number(a.value === null) - Number(b.value === null) ||
        rank(a) - rank(b) ||
        String(a.value).localeCompare(String(b.value)),
    )
    .slice(0, CHANGE_LIMITS.drivers);
}

/** Per dimension, the percent of the total change its three largest movers account for (null when total is 0). */
export function explained(all: readonly ChangeDriver[], dims: readonly DimensionFigures[], total: number) {
  return dims.map((d) => {
    const movers = all
      .filter((c) => c.dimension === d.dimension && c.change !== 0)
      .sort((a, b) => Math.abs(b.change) - Math.abs(a.change))
      .slice(0, 3);
    const sum = movers.reduce((s, c) => s + c.change, 0);
    return { dimension: d.dimension, label: d.label, explained: total === 0 ? null : Math.round((sum / total) * 1000) / 10 };
  });
}
