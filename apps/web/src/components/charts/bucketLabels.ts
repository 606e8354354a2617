import { formatDay, formatMonth, formatShortDay } from '../../lib/format.ts';

/** How a chart writes its points: in full (titles, tips, the figures table) and short (the axis). */
export interface BucketLabels {
  /** The figures table's first heading: Hour, Day, Week, Month. */
  heading: string;
  long: (value: string) => string;
  short: (value: string) => string;
}

const monthLong = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });

/**
 * The labels of a series by hour (`YYYY-MM-DDTHH:00`), day, week (its Monday, `YYYY-MM-DD`) or month
 * (`YYYY-MM`), as the stats API names its buckets; `points`: how many the chart draws (long day series
 * label months on the axis).
 */
export function bucketLabels(interval: string, points: number): BucketLabels {
  if (interval === 'hour') {
    return { heading: 'Hour', long: (v) => `${formatDay(v.slice(0, 10))}, ${v.slice(11)}`, short: (v) => v.slice(11) };
  }
  if (interval === 'week') return { heading: 'Week', long: (v) => `Week of ${formatDay(v)}`, short: formatShortDay };
  if (interval === 'month') {
    return {
      heading: 'Month',
      long: (v) => monthLong.format(new Date(`${v}-15T12:00:00Z`)),
      short: (v) => formatMonth(`${v}-15`),
    };
  }
  return { heading: 'Day', long: formatDay, short: points > 120 ? formatMonth : formatShortDay };
}
