// Days of imported records: the `YYYY-MM-DD` of ImportedRow and StagedRecord.

/** Instants before this name no real visit (the raw tables refuse them too: @us/db timeValue). */
const EARLIEST_YEAR = 2000;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A calendar day, or null when the parts name none (2024-02-30). */
function dayOf(year: number, month: number, day: number): string | null {
  if (year < EARLIEST_YEAR || year > 9999 || month < 1 || month > 12 || day < 1) return null;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/**
 * The instant (ms) of a timestamp as databases write them: `2024-05-01 12:34:56` (ClickHouse's
 * DateTime('UTC'), no zone: UTC), with fractions, `T`, and a zone (`Z`, `+00`, `+02:00`, PostgreSQL's
 * timestamptz). Null when it is none.
 */
export function instantOfTimestamp(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(
    text.trim(),
  );
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '0', fraction = '', zone = 'Z'] = m;
  if (!dayOf(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone) as RegExpExecArray;
    offsetMinutes = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0));
  }
  const ms = fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0;
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms) - offsetMinutes * 60_000;
}

/** The UTC day of an instant (ms). */
export function utcDay(at: number): string {
  const d = new Date(at);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** A `YYYYMMDD` day (Google Analytics 4's Date column; `YYYY-MM-DD` too), or null when it is none. */
export function dayOfDate(text: string): string | null {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text.trim());
  return m ? dayOf(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}
