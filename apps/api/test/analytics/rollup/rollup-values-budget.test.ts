// The values a site-day's rollup keeps together (rollup-tally.ts, VALUES_PER_DAY): past the budget the grouping
// holding the most values stops counting and is named as left out; every other grouping's tallies stay exact.
import { describe, expect, it } from 'vitest';
import type { RollupRow } from '../../../src/analytics/rollup/rollup-format.ts';
import {
  Interner,
  PAGEVIEW_ROWS,
  StreamTally,
  type TallyRow,
  VALUES_PER_DAY,
  ValueBudget,
} from '../../../src/analytics/rollup/rollup-tally.ts';

/** `n` pageviews, one a visitor, each on a path of its own, from two countries; tallied under `budget`. */
function tally(n: number, budget: ValueBudget, columns = [new Interner(), new Interner()]) {
  const t = new StreamTally(
    new Interner(),
    columns,
    [
      { dimension: '', columns: [] },
      { dimension: 'country', columns: [0] },
      { dimension: 'page', columns: [1] },
    ],
    PAGEVIEW_ROWS,
    true,
    [],
    -1,
    budget,
  );
  const lanes = new Interner();
  const row: TallyRow = { lane: 0, ids: new Int32Array(2), in0: 1, in1: 1, searched: 0, scroll: NaN, ms: NaN, cents: NaN };
  for (let i = 0; i < n; i++) {
    row.lane = lanes.id('human');
    row.ids[0] = (columns[0] as Interner).id(i % 2 ? 'DE' : 'FR');
    row.ids[1] = (columns[1] as Interner).id(`/search/${i}`);
    t.add(row);
    t.endVisitor();
  }
  return t;
}

const pageviews = (rows: RollupRow[], dimension: string) =>
  Object.fromEntries(
    rows.filter((r) => r.metric_set === 'pageviews' && r.dimension === dimension).map((r) => [r.value, r.count]),
  );

describe('the values a site-day keeps together', () => {
  it('leaves out the grouping with the most values once past the budget, and keeps the rest exact', () => {
    const t = tally(1_000, new ValueBudget(300));
    expect(t.omitted()).toEqual(['page']);
    const rows = t.rows();
    expect(pageviews(rows, 'page')).toEqual({});
    expect(pageviews(rows, '')).toEqual({ '': '1000' });
    expect(pageviews(rows, 'country')).toEqual({ DE: '500', FR: '500' });
  });

  it('shares one budget between streams, and never leaves out the day total', () => {
    const budget = new ValueBudget(2);
    const a = tally(10, budget);
    const b = tally(10, budget);
    expect(a.omitted()).toEqual(['country', 'page']);
    expect(b.omitted()).toEqual(['country', 'page']);
    expect(pageviews(a.rows(), '')).toEqual({ '': '10' });
    expect(pageviews(b.rows(), '')).toEqual({ '': '10' });
  });

  it('keeps every value of a day of 20,000 pages within the default budget, and not of 100,000', () => {
    expect(VALUES_PER_DAY).toBe(100_000);
    const t = tally(20_000, new ValueBudget());
    expect(t.omitted()).toEqual([]);
    expect(Object.keys(pageviews(t.rows(), 'page'))).toHaveLength(20_000);
    expect(tally(VALUES_PER_DAY, new ValueBudget()).omitted()).toEqual(['page']);
  });
});
