// The buckets of a series (`by` a time): every local day, hour, ISO week or month a range touches, in
// order, so an answer lists each one (zeros filled) whether or not it has rows.
import { addDays, type DayRange, daysOf, hoursOf } from './range.ts';

/** The Monday of the ISO week holding `day` (YYYY-MM-DD). */
export function mondayOf(day: string): string {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(day, -((weekday + 6) % 7));
}

/** Each ISO week the range touches, as its Monday; the first Monday may come before `from`. */
export function weeksOf(r: DayRange): string[] {
  const out: string[] = [];
  for (let d = mondayOf(r.from); d <= r.to; d = addDays(d, 7)) out.push(d);
  return out;
}

/** Each month the range touches, YYYY-MM. */
export function monthsOf(r: DayRange): string[] {
  const out: string[] = [];
  let [y, m] = r.from.slice(0, 7).split('-').map(Number) as [number, number];
  const last = r.to.slice(0, 7);
  for (;;) {
    const month = `${y}-${String(m).padStart(2, '0')}`;
    if (month > last) return out;
    out.push(month);
    if (++m > 12) [y, m] = [y + 1, 1];
  }
}

/** The buckets of a series by `by`, or null when `by` is not a time. */
export function seriesKeys(by: string | null, r: DayRange): string[] | null {
  if (by === 'day') return daysOf(r);
  if (by === 'hour') return hoursOf(r);
  if (by === 'week') return weeksOf(r);
  if (by === 'month') return monthsOf(r);
  return null;
}
