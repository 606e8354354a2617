import { formatCount } from '../../lib/format.ts';
import { type BucketLabels, bucketLabels } from './bucketLabels.ts';
import { type ChartLine, chartFigure } from './SeriesChart.tsx';

/** The chart's figures as a table for screen readers (the drawing itself is one image to them). */
export function ChartTable({
  name,
  days,
  lines,
  labels = bucketLabels('day', days.length),
}: {
  name: string;
  days: string[];
  lines: ChartLine[];
  labels?: BucketLabels;
}) {
  const compared = lines.filter((l) => l.previous);
  return (
    <table className="site-visually-hidden" aria-label={`${name}, figures`}>
      <thead>
        <tr>
          <th scope="col">{labels.heading}</th>
          {lines.map((l) => (
            <th key={l.key} scope="col">
              {l.label}
            </th>
          ))}
          {compared.map((l) => (
            <th key={`${l.key}-previous`} scope="col">
              {l.label}, previous period
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {days.map((day, i) => (
          <tr key={day}>
            <th scope="row">{labels.long(day)}</th>
            {lines.map((l) => (
              <td key={l.key}>{chartFigure(l.values[i])}</td>
            ))}
            {compared.map((l) => (
              <td key={`${l.key}-previous`}>{formatCount(l.previous?.[i] ?? 0)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
