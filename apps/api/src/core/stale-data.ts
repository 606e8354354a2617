/**
 * Offline data the service ships (network and country tables, crawler lists) ages: a start-up warning
 * names each piece older than `STALE_AFTER_DAYS`, its date and how to update it.
 */
export interface DatedData {
  /** What it is, as an operator would look for it. */
  what: string;
  /** The day its source was copied or released, `YYYY-MM-DD`. */
  date: string;
  /** How to bring it up to date. */
  update: string;
}

export const STALE_AFTER_DAYS = 90;

const DAY_MS = 86_400_000;

/** One line per piece older than `maxDays` on `now`; a date that does not parse is a warning too. */
export function staleDataWarnings(data: readonly DatedData[], now = new Date(), maxDays = STALE_AFTER_DAYS): string[] {
  const lines: string[] = [];
  for (const d of data) {
    const at = /^\d{4}-\d{2}-\d{2}$/.test(d.date) ? Date.parse(`${d.date}T00:00:00Z`) : Number.NaN;
    if (Number.isNaN(at)) {
      lines.push(`${d.what} has no readable date (${d.date}): ${d.update}`);
      continue;
    }
    const days = Math.floor((now.getTime() - at) / DAY_MS);
    if (days > maxDays) lines.push(`${d.what} is from ${d.date}, ${days} days old: ${d.update}`);
  }
  return lines;
}

/** `2.3.2026061719` (ip-location-db's versions end in the build's year, month, day and hour) → `2026-06-17`. */
export function dateOfBuildVersion(version: string): string {
  const m = /\.(\d{4})(\d{2})(\d{2})\d{2}$/.exec(version);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : version;
}
