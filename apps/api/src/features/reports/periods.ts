// The periods an e-mail report covers, as calendar days of the site's time zone (YYYY-MM-DD).
import { addDays } from '../../analytics/range.ts';

export type Frequency = 'weekly' | 'monthly';
export interface Period {
  from: string;
  to: string;
}

const utc = (day: string) => new Date(`${day}T00:00:00Z`);

/**
 * The last period that has ended by `today`: the last full Monday–Sunday week, or the last full calendar
 * month.
 */
export function lastClosedPeriod(frequency: Frequency, today: string): Period {
  if (frequency === 'weekly') {
    const weekday = (utc(today).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
    const thisMonday = addDays(today, -weekday);
    return { from: addDays(thisMonday, -7), to: addDays(thisMonday, -1) };
  }
  const firstOfThisMonth = `${today.slice(0, 7)}-01`;
  const to = addDays(firstOfThisMonth, -1);
  return { from: `${to.slice(0, 7)}-01`, to };
}

/** How the period is named in the e-mail: "Nov 16 – Nov 22, 2026" or "October 2026". */
export function periodName(frequency: Frequency, p: Period): string {
  const f = utc(p.from);
  if (frequency === 'monthly') {
    return new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(f);
  }
  const day = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
  return `${day.format(f)} – ${day.format(utc(p.to))}, ${p.to.slice(0, 4)}`;
}
