// The periods an alert rule looks at, in its site's time zone: the last complete hour (`YYYY-MM-DDTHH:00`,
// as the stats engine names an hour of a series) or day (`YYYY-MM-DD`), and the same hour or weekday of
// the weeks before it, whose average is the usual figure.
import { ALERT_LIMITS, type AlertWindow } from '@us/shared';
import { addDays } from '../../analytics/range.ts';

export interface AlertPeriod {
  /** The key a delivery is recorded under: once per rule and key. */
  key: string;
  /** The local day the period is in. */
  day: string;
  /** Keys of the same hour or weekday 1…ALERT_LIMITS.baselineWeeks weeks earlier. */
  baselineKeys: string[];
}

/** The local day and hour of `now` in `timezone`. */
function localNow(timezone: string, now: Date): { day: string; hour: number } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return { day: `${get('year')}-${get('month')}-${get('day')}`, hour: Number(get('hour')) };
}

const hourKey = (day: string, hour: number) => `${day}T${String(hour).padStart(2, '0')}:00`;

/** The last period of `window` that has ended by `now`, with its baseline's keys. */
export function lastClosedPeriod(window: AlertWindow, timezone: string, now: Date): AlertPeriod {
  const local = localNow(timezone, now);
  const weeks = Array.from({ length: ALERT_LIMITS.baselineWeeks }, (_, i) => 7 * (i + 1));
  if (window === 'day') {
    const day = addDays(local.day, -1);
    return { key: day, day, baselineKeys: weeks.map((d) => addDays(day, -d)) };
  }
  // The local hour an hour ago, not the local hour minus one: on the night clocks go forward that names an hour
  // that never was (counted 0, a false drop alert), and the hour before it was never looked at.
  const { day, hour } = localNow(timezone, new Date(now.getTime() - 3600_000));
  return { key: hourKey(day, hour), day, baselineKeys: weeks.map((d) => hourKey(addDays(day, -d), hour)) };
}

/** How the period reads in an e-mail: "Nov 27, 2026" or "Nov 27, 2026, 14:00–15:00". */
export function periodName(key: string): string {
  const day = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${key.slice(0, 10)}T00:00:00Z`),
  );
  if (key.length === 10) return day;
  const hour = Number(key.slice(11, 13));
  return `${day}, ${key.slice(11, 16)}–${String((hour + 1) % 24).padStart(2, '0')}:00`;
}
