// Which UTC `day` partitions of a site-local range the per-day store may answer: days lying wholly
// inside the range (so no row of them is cut off by a local midnight) and settled (their last instant is
// more than the collector's 48 h record window plus an hour of buffering in the past, so no new record
// can be accepted for them). Every other UTC day the range touches is read raw.
import { RECORD_WINDOW } from '../../collect/intake.ts';
import { addDays, type DayRange, localToday } from '../stats/range.ts';

/** After a UTC day ends, how long records may still arrive (collector window + one hour of buffering). */
export const SETTLE_MS = RECORD_WINDOW.backMs + 3600_000;

const startOf = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** True when no new record can be accepted for the UTC day any more. */
export function settled(day: string, now: Date): boolean {
  return startOf(addDays(day, 1)) + SETTLE_MS <= now.getTime();
}

export interface DaySplit {
  /** Settled UTC days wholly inside the range: answered from the store. */
  stored: string[];
  /** The other UTC days the range touches: read raw (their rows still cut by the local range). */
  raw: string[];
}

export function splitUtcDays(range: DayRange, timezone: string, now: Date, earliest?: string): DaySplit {
  const stored: string[] = [];
  const raw: string[] = [];
  for (let d = addDays(range.from, -1); d <= addDays(range.to, 1); d = addDays(d, 1)) {
    const first = localToday(timezone, new Date(startOf(d)));
    const last = localToday(timezone, new Date(startOf(addDays(d, 1)) - 1));
    const inside = first >= range.from && last <= range.to;
    if (inside && settled(d, now) && (earliest === undefined || d >= earliest)) stored.push(d);
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
