// The key of a stored day: a hash of everything that determines its figures. The definition (goal
// type and match, experiment key and goal, journeys zoom, lane, goals and experiment keys), the time
// zone where local days appear in the rows, and the site's bot windows that can touch the day's rows
// (from the day before to the day after), since windows move human rows into the bot lane.
import { createHash } from 'node:crypto';
import { addDays } from '../range.ts';
import type { BotWindowDef } from '../site-ctx.ts';

/** The bot windows overlapping the UTC day (± one day), in a stable text form. */
export function windowsOfDay(windows: readonly BotWindowDef[], day: string): string {
  const from = Date.parse(`${addDays(day, -1)}T00:00:00Z`);
  const to = Date.parse(`${addDays(day, 2)}T00:00:00Z`);
  const touching = windows
    .filter((w) => w.from.getTime() < to && w.to.getTime() >= from)
    .map((w) => [w.from.toISOString(), w.to.toISOString(), w.country, w.asn, w.asOrg]);
  return JSON.stringify(touching);
}

export function specOf(definition: unknown, windows: readonly BotWindowDef[], day: string): string {
  return createHash('sha256')
    .update(JSON.stringify(definition))
    .update('\n')
    .update(windowsOfDay(windows, day))
    .digest('base64url')
    .slice(0, 32);
}
