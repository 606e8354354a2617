import { Card } from '../../../components/Card.tsx';
import { ChartTable } from '../../../components/charts/ChartTable.tsx';
import { type ChartLine, SeriesChart } from '../../../components/charts/SeriesChart.tsx';
import { formatCount } from '../../../lib/format.ts';
import type { SearchWeeks } from './data.ts';
import { mondays, weekValues } from './weekSeries.ts';

type Week = SearchWeeks['weeks'][number];

const SOURCES = [
  { source: 'primary', label: 'Google', tone: 'primary' },
  { source: 'secondary', label: 'Bing', tone: 'secondary' },
] as const;

const show = (v: number | null, f: (n: number) => string = formatCount) => (v === null ? '—' : f(v));

/** Clicks and impressions per week and source as two charts (their scales differ), and every figure as a table. */
export function WeeksCard({ data }: { data: SearchWeeks }) {
  const weeks = mondays(data.from, data.to);
  const lineOf = (figure: 'clicks' | 'impressions') =>
    SOURCES.filter(({ source }) => data.weeks.some((w) => w.source === source)).map(
      ({ source, label, tone }): ChartLine => ({
        key: `${source}-${figure}`,
        label,
        tone,
        values: weekValues(data, weeks, source, figure),
        previous: null,
      }),
    );
  if (data.weeks.length === 0) {
    return (
      <Card title="Weekly figures">
        <p>No weeks yet: connect a source above; figures arrive with the next hourly pull (twelve weeks back).</p>
      </Card>
    );
  }
  return (
    <Card title="Weekly figures">
      {(['clicks', 'impressions'] as const).map((figure) => (
        <div key={figure}>
          <h3>{figure === 'clicks' ? 'Clicks per week' : 'Impressions per week'}</h3>
          <SeriesChart name={`Search ${figure} per week`} days={weeks} previousDays={null} lines={lineOf(figure)} />
          <ChartTable name={`Search ${figure} per week`} days={weeks} lines={lineOf(figure)} />
        </div>
      ))}
      <table className="site-table" aria-label="Search weeks">
        <thead>
          <tr>
            <th scope="col">Week of</th>
            <th scope="col">Source</th>
            <th scope="col">Clicks</th>
            <th scope="col">Impressions</th>
            <th scope="col">CTR</th>
            <th scope="col">Position</th>
            <th scope="col">Pages</th>
            <th scope="col">Queries</th>
            <th scope="col">Links</th>
          </tr>
        </thead>
        <tbody>
          {[...data.weeks].reverse().map((w: Week) => (
            <tr key={`${w.week}-${w.source}`}>
              <th scope="row">{w.week}</th>
              <td>{w.source === 'primary' ? 'Google' : 'Bing'}</td>
              <td>{show(w.clicks)}</td>
              <td>{show(w.impressions)}</td>
              <td>{show(w.ctr, (n) => `${(n * 100).toFixed(1)}%`)}</td>
              <td>{show(w.position, (n) => n.toFixed(1))}</td>
              <td>{show(w.pages)}</td>
              <td>{show(w.queries)}</td>
              <td>{show(w.links)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        — not collected (a week or figure the source did not report, a rate without impressions, links from Google); 0 is a
        measurement. The charts leave a gap for a week not collected.
      </p>
    </Card>
  );
}
