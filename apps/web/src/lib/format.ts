/**
 * Figures, days and times as people read them, for every page. Where two formatters look alike, their
 * names and notes say how they differ (the difference is kept on purpose: each page shows what it did).
 */

// Numbers, in the browser's language.
const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
const twoPlaces = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const onePlace = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const toHundredths = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

export const formatCount = (n: number) => whole.format(n);
/** Short axis labels: 1.2K, 3M. */
export const formatCompact = (n: number) => compact.format(n);
export const formatPercent = (n: number) => `${onePlace.format(n)}%`;
/** Always two places (1.50): pages per visit. */
export const formatRatio = (n: number) => twoPlaces.format(n);
/** To the hundredth, no trailing zeros (19.9, 1,250): event values as the API keeps them, lift ratios. */
export const formatHundredths = (n: number) => toHundredths.format(n);

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

/** A difference of two rates in percentage points with its sign, always one place: "+1.5 points", "−0.3 points". */
export const formatPointsChange = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x).toFixed(1)} points`;

// Numbers written the English way whatever the browser's language (1,250): the billing pages and the
// collector's health note.

/** Up to three decimals, as `toLocaleString('en')` writes them. */
export const formatNumberEn = (n: number) => n.toLocaleString('en');
/** Amounts as computed (up to three decimals): the month's projected overage. */
export const formatUsd = (n: number) => `${formatNumberEn(n)} USD`;
/** Amounts to the cent: invoiced overage. */
export const formatUsdToCents = (n: number) => `${n.toLocaleString('en', { maximumFractionDigits: 2 })} USD`;

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

// Instants (ISO timestamps), in the browser's zone and language.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const date = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' });
const dayAndTime = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const clockWithSeconds = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Date with year and time ("Nov 17, 2026, 2:05 PM"), or "never". */
export const formatDateTime = (iso: string | null) => (iso ? dateTime.format(new Date(iso)) : 'never');
/** The date alone, month in words ("November 17, 2026"). */
export const formatDate = (iso: string) => date.format(new Date(iso));
/** Day and month with the time, no year ("17 Nov, 14:05"): the dry run's window. */
export const formatDayAndTime = (iso: string) => dayAndTime.format(new Date(iso));
/** The time alone ("14:05"): when export links expire. */
export const formatClockTime = (iso: string) => clock.format(new Date(iso));
/** The time to the second ("14:05:09"): the last pageviews. */
export const formatClockTimeWithSeconds = (iso: string) => clockWithSeconds.format(new Date(iso));

/** A TOTP secret in groups of four, easier to type into an authenticator app. */
export const groupSecret = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');
