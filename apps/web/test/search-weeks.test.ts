import { describe, expect, it } from 'vitest';
import { linePath } from '../src/components/charts/chartScale.ts';
import { chartFigure } from '../src/components/charts/SeriesChart.tsx';
import type { SearchWeeks } from '../src/pages/sites/search/data.ts';
import { mondays, weekValues } from '../src/pages/sites/search/weekSeries.ts';

const row = (week: string, source: 'primary' | 'secondary', clicks: number | null) => ({
  week,
  source,
  clicks,
  impressions: clicks === null ? null : clicks * 10,
  ctr: null,
  position: null,
  pages: null,
  queries: null,
  links: null,
  top: null,
});

describe('search weeks in the dashboard', () => {
  const data: SearchWeeks = {
    from: '2026-11-02',
    to: '2026-11-23',
    weeks: [row('2026-11-02', 'primary', 4), row('2026-11-09', 'primary', null), row('2026-11-23', 'primary', 0)],
  };

  it('a week not collected (a null row, or no row) is null, never 0; a measured zero stays 0', () => {
    const weeks = mondays(data.from, data.to);
    expect(weeks).toEqual(['2026-11-02', '2026-11-09', '2026-11-16', '2026-11-23']);
    expect(weekValues(data, weeks, 'primary', 'clicks')).toEqual([4, null, null, 0]);
    expect(weekValues(data, weeks, 'secondary', 'impressions')).toEqual([null, null, null, null]);
    expect([4, null, 0].map(chartFigure)).toEqual(['4', '—', '0']);
  });

  it('the chart line leaves a gap where a week was not collected', () => {
    expect(
      linePath([
        [0, 10],
        [1, null],
        [2, 30],
        [3, 40],
      ]),
    ).toBe('M0.0,10.0 M2.0,30.0 L3.0,40.0');
    expect(linePath([[0, null]])).toBe('');
  });
});
