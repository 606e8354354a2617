// Which UTC `day` partitions of a site-local range the per-day store may answer: days lying wholly
// inside the range, so no row of them is cut off by a local midnight. Today included: whether a stored
// day is still current is told by its arrivals version (store.ts), not by its age. Every other UTC day
// the range touches is read raw.
import { addDays, type DayRange, localToday } from '../range.ts';

const startOf = (day: string) => Date.parse(`${day}T00:00:00Z`);
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface DaySplit {
  /** UTC days wholly inside the range: answered from the store. */
  stored: string[];
  /** The other UTC days the range touches: read raw (their rows still cut by the local range). */
  raw: string[];
}

/** `earliest`: no day before it is stored (the job keeps off the day retention cuts next). */
export function splitUtcDays(range: DayRange, timezone: string, earliest?: string, now = Date.now()): DaySplit {
  const stored: string[] = [];
  const raw: string[] = [];
  // No day after tomorrow holds rows (records are taken at most minutes ahead): a range ten years into the future
  // was thousands of days split on the event loop for nothing.
  const end = [addDays(range.to, 1), addDays(utcDay(now), 2)].sort()[0] as string;
  for (let d = addDays(range.from, -1); d <= end; d = addDays(d, 1)) {
    const first = localToday(timezone, new Date(startOf(d)));
    const last = localToday(timezone, new Date(startOf(addDays(d, 1)) - 1));
    const inside = first >= range.from && last <= range.to;
    if (inside && (earliest === undefined || d >= earliest)) stored.push(d);
    else raw.push(d);
  }
  return { stored, raw };
}

/** The local days holding every instant of a UTC day (one or two). */
export function localRangeOf(day: string, timezone: string): DayRange {
  return {
    from: localToday(timezone, new Date(startOf(day))),
    to: localToday(timezone, new Date(startOf(addDays(day, 1)) - 1)),
  };
}
