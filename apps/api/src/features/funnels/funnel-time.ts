// The time between two funnel steps, kept as a histogram so days computed apart add up: a session's seconds
// are rounded to the second under 10 minutes, to 10 seconds under an hour and to the minute beyond (a session
// never crosses midnight UTC, so a day bounds it). The median of the merged histogram is then exact to that
// bucket, whatever the range.

/** SQL of the bucket of `dt` (an expression of seconds from the step before). */
export const timeBucketSql = (
  dt: string,
) => `(case when ${dt} < 600 then round(${dt}) when ${dt} < 3600 then round(${dt} / 10) * 10
      else round(${dt} / 60) * 60 end)::float8`;

/** Sessions per bucket (seconds → count). */
export type TimeHistogram = Map<number, number>;

export function addToHistogram(h: TimeHistogram, seconds: number, n: number): void {
  h.set(seconds, (h.get(seconds) ?? 0) + n);
}

/**
 * The median of the histogram as PostgreSQL's percentile_cont(0.5) gives it over the bucketed values: the
 * middle value, or the mean of the two middle ones. Null when empty.
 */
export function medianOf(h: TimeHistogram): number | null {
  const sorted = [...h.entries()].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((sum, [, n]) => sum + n, 0);
  if (!total) return null;
  const at = (k: number): number => {
    let seen = 0;
    for (const [seconds, n] of sorted) {
      seen += n;
      if (k < seen) return seconds;
    }
    return sorted.at(-1)?.[0] ?? 0;
  };
  const mid = (total - 1) / 2;
  return (at(Math.floor(mid)) + at(Math.ceil(mid))) / 2;
}
