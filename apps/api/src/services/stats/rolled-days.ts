// Recent days that are already rolled up can be answered from `daily_rollups` too: the figures are the
// same (visitor codes live one day, so daily visitors add up), and reading a few hundred rollup rows
// instead of millions of raw rows is what keeps a 30-day dashboard fast. Days older than 90 always
// come from rollups; a recent day comes from them only when the question fits the rollup format and
// no bot window (applied when reading raw rows, not in rollups) touches the days.
import { addDays, type DayRange, splitRange } from './range.ts';
import type { SiteCtx } from './site-ctx.ts';
import { Params, runSql } from './sql.ts';

export interface Split {
  rollup: DayRange | null;
  raw: DayRange | null;
}

const DAY_MS = 86_400_000;

/** The last day E of `r` such that every day from r.from to E is rolled up, or null. */
async function rolledUpEnd(ctx: SiteCtx, r: DayRange): Promise<string | null> {
  const touched = ctx.windows.some(
    (w) => w.to.getTime() >= Date.parse(r.from) - DAY_MS && w.from.getTime() <= Date.parse(r.to) + 2 * DAY_MS,
  );
  if (touched) return null;
  const p = new Params();
  const rows = await runSql<{ day: string }>(
    ctx.em,
    `select to_char(day, 'YYYY-MM-DD') as day from rollup_days
      where site_id = ${p.add(ctx.siteId, 'uuid')} and day between ${p.add(r.from, 'date')} and ${p.add(r.to, 'date')} order by day`,
    p,
  );
  let end: string | null = null;
  let next = r.from;
  for (const { day } of rows) {
    if (day !== next) break;
    end = day;
    next = addDays(day, 1);
  }
  return end;
}

/**
 * Which days of `r` come from rollups and which from raw rows. `eligible`: the question can be answered
 * from rollups at all (no hourly series, no leave counts, at most one dimension, no raw-only condition).
 */
export async function splitForQuestion(ctx: SiteCtx, r: DayRange, eligible: boolean): Promise<Split> {
  const base = splitRange(r, ctx.rawStart);
  if (!eligible || !base.raw) return base;
  const end = await rolledUpEnd(ctx, base.raw);
  if (!end) return base;
  return {
    rollup: { from: base.rollup?.from ?? base.raw.from, to: end },
    raw: end >= base.raw.to ? null : { from: addDays(end, 1), to: base.raw.to },
  };
}
