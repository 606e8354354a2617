// The calendar days this service takes from outside, in one place (the stats engine's range.ts, annotations).

/**
 * The days a question may name. Day arithmetic works on YYYY-MM-DD text: a day after 9999-12-31 has no four-digit
 * year (`+010000-01`), still sorts before `9999-…`, and a loop over such a range never ended. Ranges reach at most
 * STATS_LIMITS.maxDays (ten years) either side of a named day, so these bounds keep every day computed in 1960–2209.
 */
export const FIRST_DAY = '1970-01-01';
export const LAST_DAY = '2199-12-31';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar day written YYYY-MM-DD (2026-02-30 is not one) from FIRST_DAY to LAST_DAY. */
export function isDay(s: string): boolean {
  const m = DAY.exec(s);
  if (!m || s < FIRST_DAY || s > LAST_DAY) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}
