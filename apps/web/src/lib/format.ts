/** Figures of the dashboard as people read them. */
const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
const twoPlaces = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const onePlace = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const toHundredths = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

export const formatCount = (n: number) => whole.format(n);
/** Short axis labels: 1.2K, 3M. */
export const formatCompact = (n: number) => compact.format(n);
export const formatPercent = (n: number) => `${onePlace.format(n)}%`;
export const formatRatio = (n: number) => twoPlaces.format(n);
/** Event values as the API keeps them: to the hundredth, no trailing zeros (19.9, 1,250). */
export const formatValue = (n: number) => toHundredths.format(n);

/** Seconds as "1m 05s" (or "42s", "1h 02m"). */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** A change in percent with its sign: "+12.5%", "−3%", "0%". */
export function formatChange(change: number): string {
  const sign = change > 0 ? '+' : change < 0 ? '−' : '';
  return `${sign}${onePlace.format(Math.abs(change))}%`;
}

// Report days are calendar days of the site's zone, written YYYY-MM-DD: shown as they are (UTC noon
// keeps the date itself whatever the browser's zone).
const dayOf = (day: string) => new Date(`${day}T12:00:00Z`);
const longDay = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const shortDay = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
const monthOnly = new Intl.DateTimeFormat(undefined, { month: 'short', year: '2-digit', timeZone: 'UTC' });

export const formatDay = (day: string) => longDay.format(dayOf(day));
export const formatShortDay = (day: string) => shortDay.format(dayOf(day));
export const formatMonth = (day: string) => monthOnly.format(dayOf(day));

const range = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** "Nov 17 – 23, 2026" (as the browser's language writes a range), or one day. */
export const formatPeriod = (from: string, to: string) =>
  from === to ? formatDay(from) : range.formatRange(dayOf(from), dayOf(to));
