import type { SearchWeeks } from './data.ts';

/** Every Monday of the range, oldest first. */
export function mondays(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 7 * 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

/**
 * One source's figure for each of `weeks`: null where it was not collected (no row for the week, or
 * the source reported nothing for it), so the chart leaves a gap rather than drawing a zero.
 */
export function weekValues(
  data: SearchWeeks,
  weeks: readonly string[],
  source: 'primary' | 'secondary',
  figure: 'clicks' | 'impressions',
): (number | null)[] {
  return weeks.map((week) => data.weeks.find((w) => w.week === week && w.source === source)?.[figure] ?? null);
}
