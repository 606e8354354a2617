// The shown period as days, stepping it, and the chart's interval: which fit a period, which is the
// default. Days are YYYY-MM-DD in the site's time zone (the API's report days).

export const INTERVALS = [
  { key: 'hour', label: 'Hour' },
  { key: 'day', label: 'Day' },
  { key: 'week', label: 'Week' },
  { key: 'month', label: 'Month' },
] as const;
export type Interval = (typeof INTERVALS)[number]['key'];

export interface Period {
  from: string;
  to: string;
}

const MS_PER_DAY = 86_400_000;
export const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * MS_PER_DAY).toISOString().slice(0, 10);
export const lengthOf = (p: Period) =>
  Math.round((Date.parse(`${p.to}T00:00:00Z`) - Date.parse(`${p.from}T00:00:00Z`)) / MS_PER_DAY) + 1;

/** Today in a time zone (the site's), YYYY-MM-DD; the browser's calendar when none is known. */
export function todayIn(timezone?: string, now = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** The days the API keeps hours for (its raw window, STATS_LIMITS.rawDays). */
export const HOURS_KEPT_DAYS = 90;

/**
 * Whether an interval fits a period of `days`: hours up to 2 days (and only within the days hours are
 * kept: `old` periods have none), weeks from 14, months from 60; days always.
 */
export function fits(interval: Interval, days: number, old = false): boolean {
  if (interval === 'hour') return days <= 2 && !old;
  if (interval === 'week') return days >= 14;
  if (interval === 'month') return days >= 60;
  return true;
}

/** The default interval: hours for a day or two, days up to 90, weeks up to two years, then months. */
export function defaultInterval(days: number, old = false): Interval {
  if (days <= 2) return old ? 'day' : 'hour';
  if (days <= 90) return 'day';
  return days <= 730 ? 'week' : 'month';
}

/** The interval the chart uses: the chosen one when it fits the period, else the default. */
export function intervalOf(chosen: Interval | null, days: number, old = false): Interval {
  return chosen && fits(chosen, days, old) ? chosen : defaultInterval(days, old);
}

/**
 * The period moved back (-1) or forward (+1) by its own length, never past today (a step that would
 * ends today, the same length); null when the period ends today already. Presets step into custom ranges.
 */
export function stepped(p: Period, direction: -1 | 1, today: string): Period | null {
  const n = lengthOf(p);
  if (direction === 1 && p.to >= today) return null;
  const next = { from: addDays(p.from, direction * n), to: addDays(p.to, direction * n) };
  return next.to > today ? { from: addDays(today, -(n - 1)), to: today } : next;
}

/** A range as the dashboard's choices hold it (choices.ts, which builds on this file). */
export interface RangeChoice {
  range: string;
  from: string | null;
  to: string | null;
}

/** The days a choice of range shows (custom without `to`: up to today). */
export function periodOf(c: RangeChoice, days: number, today: string): Period {
  if (c.range === 'custom' && c.from) return { from: c.from, to: c.to ?? today };
  if (c.range === 'yesterday') return { from: addDays(today, -1), to: addDays(today, -1) };
  return { from: addDays(today, -(days - 1)), to: today };
}
