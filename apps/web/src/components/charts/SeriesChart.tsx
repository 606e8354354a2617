import { useState } from 'react';
import { formatCompact, formatCount } from '../../lib/format.ts';
import { type BucketLabels, bucketLabels } from './bucketLabels.ts';
import { labelIndexes, linePath, yTicks } from './chartScale.ts';
import { useElementWidth } from './useElementWidth.ts';

/**
 * One drawn count: this period's value per day and, when comparing, the previous period's. A value
 * of null was not collected: a gap in the line, "—" in words.
 */
export interface ChartLine {
  key: string;
  label: string;
  /** The line's colour: the dashboard's two, and the Protection page's challenge and deny. */
  tone: 'primary' | 'secondary' | 'warn' | 'danger';
  values: (number | null)[];
  previous: number[] | null;
}

/** A day marked with a text (an annotation): a flagged line on the chart, the text in the day's figures. */
export interface ChartMark {
  day: string;
  text: string;
}

/** A value in words: "—" when not collected. */
export const chartFigure = (v: number | null | undefined) => (v === null ? '—' : formatCount(v ?? 0));

const HEIGHT = 240;
const M = { top: 12, right: 16, bottom: 28, left: 48 };

/**
 * A line chart of daily figures drawn in SVG at the width it is given: a point per day and line, the
 * previous period dashed, the day under the pointer outlined with its figures.
 */
export function SeriesChart({
  name,
  days,
  previousDays,
  lines,
  marks = [],
  labels: written,
}: {
  name: string;
  /** The points' values: days, or hours, weeks, months as the stats API names them (with `labels`). */
  days: string[];
  previousDays: string[] | null;
  lines: ChartLine[];
  marks?: ChartMark[];
  /** How points are written; default days. */
  labels?: BucketLabels;
}) {
  const [wrap, width] = useElementWidth<HTMLDivElement>(640);
  const [hover, setHover] = useState<number | null>(null);
  const n = days.length;
  const plotW = width - M.left - M.right;
  const plotH = HEIGHT - M.top - M.bottom;
  const max = Math.max(0, ...lines.flatMap((l) => [...l.values.filter((v) => v !== null), ...(l.previous ?? [])]));
  const ticks = yTicks(max);
  const top = ticks[ticks.length - 1] ?? 1;
  const x = (i: number) => M.left + (n <= 1 ? plotW / 2 : (i * plotW) / (n - 1));
  const y = (v: number) => M.top + plotH - (v / top) * plotH;
  const column = n <= 1 ? plotW : plotW / (n - 1);
  const labels = labelIndexes(n, Math.max(2, Math.floor(plotW / 90)));
  const { long: formatDay, short: dayLabel } = written ?? bucketLabels('day', n);
  const dots = n <= 120;

  /** The day nearest to a pointer at `px` from the chart's left edge, or null outside the plot. */
  const dayAt = (px: number): number | null => {
    if (n === 0 || px < M.left - column / 2 || px > width - M.right + column / 2) return null;
    if (n === 1) return 0;
    return Math.min(n - 1, Math.max(0, Math.round(((px - M.left) * (n - 1)) / plotW)));
  };

  const notesOf = (day: string) => marks.filter((m) => m.day === day).map((m) => m.text);
  const marked = days.flatMap((day, i) => (notesOf(day).length ? [i] : []));

  const describe = (i: number) => {
    const day = days[i] ?? '';
    const notes = notesOf(day);
    const now = lines.map((l) => `${l.label} ${chartFigure(l.values[i])}`).join(', ');
    const prevDay = previousDays?.[i];
    const before = lines
      .filter((l) => l.previous)
      .map((l) => `${l.label} ${formatCount(l.previous?.[i] ?? 0)}`)
      .join(', ');
    const noted = notes.length ? `. Noted: ${notes.join('; ')}` : '';
    return `${formatDay(day)}: ${now}${prevDay && before ? ` (${formatDay(prevDay)}: ${before})` : ''}${noted}`;
  };

  return (
    <div className="dash-chart" ref={wrap}>
      <svg
        className="dash-chart-svg"
        width={width}
        height={HEIGHT}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        role="img"
        aria-label={name}
        onMouseMove={(e) => setHover(dayAt(e.clientX - e.currentTarget.getBoundingClientRect().left))}
        onMouseLeave={() => setHover(null)}
      >
        <g className="dash-chart-grid">
          {ticks.map((t) => (
            <g key={t}>
              <line x1={M.left} x2={width - M.right} y1={y(t)} y2={y(t)} />
              <text x={M.left - 8} y={y(t)} dy="0.32em" textAnchor="end">
                {formatCompact(t)}
              </text>
            </g>
          ))}
        </g>
        <g className="dash-chart-axis">
          {labels.map((i) => (
            <text key={days[i]} x={x(i)} y={HEIGHT - 8} textAnchor={n <= 1 ? 'middle' : i === 0 ? 'start' : 'middle'}>
              {dayLabel(days[i] ?? '')}
            </text>
          ))}
        </g>
        <g className="dash-chart-marks">
          {marked.map((i) => (
            <g key={days[i]} data-mark={days[i]}>
              <line x1={x(i)} x2={x(i)} y1={M.top} y2={M.top + plotH} />
              <path d={`M${x(i)},${M.top} l7,3.5 l-7,3.5 z`} />
            </g>
          ))}
        </g>
        {hover !== null && <line className="dash-chart-guide" x1={x(hover)} x2={x(hover)} y1={M.top} y2={M.top + plotH} />}
        {lines.map((l) => (
          <g key={l.key} className={`dash-chart-line dash-chart-${l.tone}`}>
            {l.previous && (
              <path className="dash-chart-previous" d={linePath(l.previous.slice(0, n).map((v, i) => [x(i), y(v)]))} />
            )}
            <path className="dash-chart-current" d={linePath(l.values.map((v, i) => [x(i), v === null ? null : y(v)]))} />
            {l.values.map((v, i) =>
              v !== null && (dots || hover === i) ? (
                <circle key={days[i]} className="dash-chart-point" cx={x(i)} cy={y(v)} r={hover === i ? 4.5 : 3} />
              ) : null,
            )}
          </g>
        ))}
        {/* One column per day: its title says the day's figures (hovering outlines them too). */}
        <g className="dash-chart-days">
          {days.map((day, i) => (
            <g key={day} className="dash-chart-day" data-day={day}>
              <title>{describe(i)}</title>
              <rect x={x(i) - column / 2} y={M.top} width={column} height={plotH} />
            </g>
          ))}
        </g>
      </svg>
      {hover !== null && (
        <div
          className="dash-chart-tip"
          style={{ left: Math.min(Math.max(x(hover), 90), width - 90) }}
          aria-hidden="true"
          data-testid="chart-tip"
        >
          <strong>{formatDay(days[hover] ?? '')}</strong>
          {notesOf(days[hover] ?? '').map((text) => (
            <span key={text} className="dash-chart-tip-note">
              ⚑ {text}
            </span>
          ))}
          {lines.map((l) => (
            <span key={l.key} className={`dash-chart-tip-row dash-chart-${l.tone}`}>
              <span className="dash-swatch" /> {l.label} {chartFigure(l.values[hover])}
              {l.previous && <span className="muted"> (before: {formatCount(l.previous[hover] ?? 0)})</span>}
            </span>
          ))}
        </div>
      )}
    </div>
  );
}
