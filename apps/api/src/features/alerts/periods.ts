// The periods an alert rule looks at, in its site's time zone: the last complete hour (`YYYY-MM-DDTHH:00`,
// as the stats engine names an hour of a series) or day (`YYYY-MM-DD`), and the same hour or weekday of
// the weeks before it, whose average is the usual figure.
import { ALERT_LIMITS, type AlertWindow } from '@us/shared';
import { addDays, localDayHour } from '../../analytics/range.ts';

export interface AlertPeriod {
  /** The key a delivery is recorded under: once per rule and key. */
  key: string;
  /** The local day the period is in. */
  day: string;
  /**
   * Keys of the same hour or weekday 1…ALERT_LIMITS.baselineWeeks weeks earlier; of an hour, only those that
   * happened once (the hour clocks skipped counts 0, the hour they repeat counts two hours).
   */
  baselineKeys: string[];
  /** Whether the period happened once: not the local hour repeated on the night clocks go back (two hours of figures). */
  once: boolean;
}

const hourKey = (day: string, hour: number) => `${day}T${String(hour).padStart(2, '0')}:00`;

/** How many UTC hours are the local `hour` of `day` in `timezone`: 1, or 0 and 2 on the nights clocks change. */
function timesHappened(timezone: string, day: string, hour: number): number {
  // Zones are within 14 hours of UTC: the local day lies within the UTC hours from 14 before it to 14 after.
  const from = Date.parse(`${day}T00:00:00Z`) - 14 * 3600_000;
  let n = 0;
  for (let h = 0; h < 24 + 28; h++) {
    const local = localDayHour(timezone, new Date(from + h * 3600_000));
    if (local.day === day && local.hour === hour) n++;
  }
  return n;
}

/** The last period of `window` that has ended by `now`, with its baseline's keys. */
export function lastClosedPeriod(window: AlertWindow, timezone: string, now: Date): AlertPeriod {
  const local = localDayHour(timezone, now);
  const weeks = Array.from({ length: ALERT_LIMITS.baselineWeeks }, (_, i) => 7 * (i + 1));
  if (window === 'day') {
    const day = addDays(local.day, -1);
    return { key: day, day, baselineKeys: weeks.map((d) => addDays(day, -d)), once: true };
  }
  // The local hour an hour ago, not the local hour minus one: on the night clocks go forward that names an hour
  // that never was (counted 0, a false drop alert), and the hour before it was never looked at.
  const { day, hour } = localDayHour(timezone, new Date(now.getTime() - 3600_000));
  const baselineDays = weeks.map((d) => addDays(day, -d)).filter((d) => timesHappened(timezone, d, hour) === 1);
  return {
    key: hourKey(day, hour),
    day,
    baselineKeys: baselineDays.map((d) => hourKey(d, hour)),
    once: timesHappened(timezone, day, hour) === 1,
  };
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
