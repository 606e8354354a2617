import { Card } from '../../../components/Card.tsx';
import { bucketLabels } from '../../../components/charts/bucketLabels.ts';
import { ChartTable } from '../../../components/charts/ChartTable.tsx';
import { type ChartLine, type ChartMark, SeriesChart } from '../../../components/charts/SeriesChart.tsx';
import { formatCount, formatPeriod } from '../../../lib/format.ts';
import type { LaneView } from './lanes.ts';
import type { StatsResult } from './types.ts';

/** The bucket of a day in a series by `interval`, where a day's annotation is marked (none by hour). */
function markBucket(day: string, interval: string): string | null {
  if (interval === 'hour') return null;
  if (interval === 'month') return day.slice(0, 7);
  if (interval !== 'week') return day;
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

/** The lane's series by hour, day, week or month as a chart, with a legend giving each line's total. */
export function ChartCard({
  view,
  series,
  marks = [],
}: {
  view: LaneView;
  series: StatsResult;
  /** Days marked with a text (annotations). */
  marks?: ChartMark[];
}) {
  const previous = series.previous ?? null;
  const days = series.rows.map((r) => r.value ?? '');
  const lines: ChartLine[] = view.lines.map((l) => ({
    key: l.count,
    label: l.label,
    tone: l.tone,
    values: series.rows.map((r) => r.counts[l.count] ?? 0),
    previous: previous ? previous.rows.map((r) => r.counts[l.count] ?? 0) : null,
  }));
  const interval = series.by ?? 'day';
  const labels = bucketLabels(interval, days.length);
  const bucketMarks = marks.flatMap((m) => {
    const day = markBucket(m.day, interval);
    return day ? [{ ...m, day }] : [];
  });
  const name = `${view.chartName} per ${interval}, ${formatPeriod(series.from, series.to)}`;
  return (
    <Card title={`Per ${interval}`} aside={<span className="muted">{formatPeriod(series.from, series.to)}</span>}>
      <ul className="dash-legend" aria-label="Chart legend">
        {view.lines.map((l) => (
          <li key={l.count} className={`dash-chart-${l.tone}`}>
            <span className="dash-swatch" aria-hidden="true" />
            {l.label} <strong>{formatCount(series.totals[l.count] ?? 0)}</strong>
          </li>
        ))}
        {previous && (
          <li className="dash-legend-previous">
            <span className="dash-swatch dash-swatch-dashed" aria-hidden="true" />
            Previous period ({formatPeriod(previous.from, previous.to)})
          </li>
        )}
      </ul>
      <SeriesChart
        name={name}
        days={days}
        previousDays={previous ? previous.rows.map((r) => r.value ?? '') : null}
        lines={lines}
        marks={bucketMarks}
        labels={labels}
      />
      <ChartTable name={`${view.chartName} per ${interval}`} days={days} lines={lines} labels={labels} />
    </Card>
  );
}
