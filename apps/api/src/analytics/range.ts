// Report days: calendar days in the site's time zone (spec §2 "Stats spec"). Days travel as
// `YYYY-MM-DD` text; instants are made by PostgreSQL from the day and the zone (see sql.ts).
import { FIRST_DAY, isDay, LAST_DAY, STATS_LIMITS } from '@us/shared';
import { badRequest } from '../core/errors.ts';

export interface DayRange {
  from: string;
  to: string;
}

/**
 * Days whose raw rows are read: with `after` (an instant in the first day), only rows from then on (the
 * current day's rollup covers the rows before it).
 */
export interface RawRange extends DayRange {
  after?: string;
}

const MS_PER_DAY = 86_400_000;

export { FIRST_DAY, isDay, LAST_DAY } from '@us/shared';

/** What to send instead of a day that is not one (`isDay`). */
export const dayAdvice = (field: string) => `Give ${field} as a real calendar day from ${FIRST_DAY} to ${LAST_DAY}, YYYY-MM-DD`;

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * MS_PER_DAY).toISOString().slice(0, 10);
}

/** Days from `a` to `b` (b − a). */
export function diffDays(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / MS_PER_DAY);
}

/** Every day of the range, in order. */
export function daysOf(r: DayRange): string[] {
  const out: string[] = [];
  for (let d = r.from; d <= r.to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** One formatter per zone (and with or without the hour): making one costs ~70 µs, and day splits ask thousands of times. */
const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(timezone: string, withHour = false): Intl.DateTimeFormat {
  const key = withHour ? `h ${timezone}` : timezone;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      ...(withHour ? { hour: '2-digit', hourCycle: 'h23' } : {}),
    });
    // Zones are a few hundred names; anything else fails above, before it is kept.
    if (formats.size >= 1000) formats.clear();
    formats.set(key, f);
  }
  return f;
}

/** Today in the zone, YYYY-MM-DD. */
export function localToday(timezone: string, now = new Date()): string {
  const parts = formatOf(timezone).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** The local day (YYYY-MM-DD) and hour (0–23) of `now` in the zone. */
export function localDayHour(timezone: string, now: Date): { day: string; hour: number } {
  const parts = formatOf(timezone, true).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return { day: `${get('year')}-${get('month')}-${get('day')}`, hour: Number(get('hour')) };
}

/** The first local day answered from raw rows; earlier days come from daily rollups. */
export function rawStartOf(today: string): string {
  return addDays(today, -STATS_LIMITS.rawDays);
}

/**
 * `days` (default 7, ending today) or `from`/`to` (inclusive; `to` defaults to today), checked:
 * days with from/to, to without from, bad calendar days and from after to are refused with `field`.
 */
export function resolveRange(
  input: { days?: number | undefined; from?: string | undefined; to?: string | undefined },
  today: string,
): DayRange {
  const { days, from, to } = input;
  if (days !== undefined && (from !== undefined || to !== undefined)) {
    throw badRequest('days', 'Give either days or from/to, not both');
  }
  if (to !== undefined && from === undefined) throw badRequest('from', 'Give from together with to (YYYY-MM-DD)');
  if (from !== undefined) {
    if (!isDay(from)) throw badRequest('from', dayAdvice('from'));
    if (to !== undefined && !isDay(to)) throw badRequest('to', dayAdvice('to'));
    const end = to ?? today;
    if (from > end) throw badRequest(to === undefined ? 'from' : 'to', `Give a from on or before ${end}`);
    if (diffDays(from, end) + 1 > STATS_LIMITS.maxDays) {
      throw badRequest('from', `Ask for at most ${STATS_LIMITS.maxDays} days at once`);
    }
    return { from, to: end };
  }
  const n = days ?? STATS_LIMITS.defaultDays;
  return { from: addDays(today, -(n - 1)), to: today };
}

/** The period before: as many days right before, or for a single day the same weekday a week earlier. */
export function previousRange(r: DayRange): DayRange {
  const n = diffDays(r.from, r.to) + 1;
  if (n === 1) {
    const d = addDays(r.from, -7);
    return { from: d, to: d };
  }
  return { from: addDays(r.from, -n), to: addDays(r.from, -1) };
}

/** The range split at the raw window: days older than it (rollups) and days inside it (raw rows). */
export function splitRange(r: DayRange, rawStart: string): { rollup: DayRange | null; raw: DayRange | null } {
  const rollup = r.from < rawStart ? { from: r.from, to: r.to < rawStart ? r.to : addDays(rawStart, -1) } : null;
  const raw = r.to >= rawStart ? { from: r.from > rawStart ? r.from : rawStart, to: r.to } : null;
  return { rollup, raw };
}

/** Each local hour of the range, `YYYY-MM-DDTHH:00` (23 or 25 on DST change days are not special-cased). */
export function hoursOf(r: DayRange): string[] {
  const out: string[] = [];
  for (const d of daysOf(r)) for (let h = 0; h < 24; h++) out.push(`${d}T${String(h).padStart(2, '0')}:00`);
  return out;
}
