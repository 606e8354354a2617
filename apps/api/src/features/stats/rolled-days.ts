// Recent days that are already rolled up can be answered from `daily_rollups` too: the figures are the
// same (visitor codes live one day, so daily visitors add up), and reading a few hundred rollup rows
// instead of millions of raw rows is what keeps a 30-day dashboard fast. Days older than 90 always
// come from rollups; a recent day comes from them only when the question fits the rollup format and
// no bot window (applied when reading raw rows, not in rollups) touches the days.

import { addDays, type DayRange, splitRange } from '../../analytics/range.ts';
import { IMPORTED_DONE } from '../../analytics/rollup-source.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { Params, type Statement, statement } from '../../analytics/sql.ts';
import { type DaySplit, type RolledUp, splitDays } from './planner.ts';

const DAY_MS = 86_400_000;

/** Whether a bot window may reach rows of these local days: a day's margin for time zones, one more for late leave reports. */
function botWindowTouches(ctx: SiteCtx, r: DayRange): boolean {
  return ctx.windows.some(
    (w) => w.to.getTime() >= Date.parse(r.from) - DAY_MS && w.from.getTime() <= Date.parse(r.to) + 2 * DAY_MS,
  );
}

/**
 * Days of `r` rolled up in the site's time zone, in format `version` or later with every custom property key of `properties`
 * and every grouping of `groupings` kept
 * (`until`: where a partly rolled-up day's rollup ends), days of imported history, and local days no raw
 * partition can hold rows of (none of the UTC days they overlap has one, e.g. before the first data):
 * nothing to read raw, so they count as rolled up (their rollups are empty).
 */
function rolledDaysStatement(
  ctx: SiteCtx,
  r: DayRange,
  version: number,
  properties: readonly string[],
  groupings: readonly string[],
): Statement<{ day: string; until: string | null; rolled: boolean }> {
  const p = new Params();
  const from = p.add(r.from, 'date');
  const to = p.add(r.to, 'date');
  const tz = p.add(ctx.timezone, 'text');
  const sql = `
    select to_char(day, 'YYYY-MM-DD') as day,
      to_char(rolled_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as until, true as rolled
    from rollup_days
    where site_id = ${p.add(ctx.siteId, 'uuid')}
      and day between ${from} and ${to}
      -- A day counted in the site's former time zone is another local day: read raw until counted again.
      and (timezone is null or timezone = ${tz})${
        groupings.length
          ? `
      -- A grouping the day left out for too many values: read raw.
      and not (omitted_pairs && ${p.add([...groupings], 'text[]')})`
          : ''
      }
      and version >= ${p.add(version, 'int')}${
        properties.length
          ? `
      and properties @> ${p.add([...properties], 'text[]')}`
          : ''
      }
    union
    -- Imported history: days without native data (an import skips those), read from rollups as rolled-up days.
    select distinct to_char(day, 'YYYY-MM-DD'), null, true
    from imported_rollups
    where site_id = ${p.add(ctx.siteId, 'uuid')}
      and day between ${from} and ${to} and ${IMPORTED_DONE}
    union
    select to_char(d, 'YYYY-MM-DD'), null, false
    from generate_series(${from}, ${to}, interval '1 day') d
    where not exists (
      select 1
      from unnest(array['pageviews', 'events', 'requests']) t,
        generate_series(((d::timestamp at time zone ${tz}) at time zone 'UTC')::date,
                        ((((d + interval '1 day')::timestamp at time zone ${tz}) - interval '1 microsecond') at time zone 'UTC')::date,
                        interval '1 day') u
      where to_regclass(t || '_p' || to_char(u, 'YYYYMMDD')) is not null)
    order by day, rolled desc`;
  return statement(sql, p);
}

/**
 * The last day E of `r` such that every day from r.from to E is rolled up (format `version`+), and the
 * day after E when its rollup reaches only part of it (the current day).
 */
async function rolledUp(
  ctx: SiteCtx,
  r: DayRange,
  version: number,
  properties: readonly string[],
  groupings: readonly string[],
): Promise<RolledUp> {
  const none: RolledUp = { complete: null, partial: null };
  if (botWindowTouches(ctx, r)) return none;
  let complete: string | null = null;
  let next = r.from;
  // Days without partitions alone are no reason to read rollups (the answer's source stays raw).
  let real = false;
  for (const { day, until, rolled } of await run(ctx.em, rolledDaysStatement(ctx, r, version, properties, groupings))) {
    if (day === complete) continue;
    if (day !== next) break;
    if (until) return { complete, partial: { day, until } };
    real ||= rolled;
    complete = day;
    next = addDays(day, 1);
  }
  return real ? { complete, partial: null } : none;
}

/**
 * Which days of `r` come from rollups and which from raw rows. `eligible`: the question can be answered
 * from rollups at all (no hourly series, one dimension or a kept pair, no raw-only condition); `version`:
 * the rollup format it needs (2 for a pair); `partial`: whether the current day's rollup up to an hour may
 * answer (not for exit pages: a visit going on past that hour has a later exit than the rollup kept);
 * `properties`: the custom property keys it names (a day rolled up before one was kept has no rows of it);
 * `groupings`: the dimensions and pairs it reads (a day that left one out has no rows of it).
 */
export async function splitForQuestion(
  ctx: SiteCtx,
  r: DayRange,
  eligible: boolean,
  version: number,
  partial = true,
  properties: readonly string[] = [],
  groupings: readonly string[] = [],
): Promise<DaySplit> {
  const recent = splitRange(r, ctx.rawStart).raw;
  const rolled =
    eligible && recent ? await rolledUp(ctx, recent, version, properties, groupings) : { complete: null, partial: null };
  return splitDays(r, ctx.rawStart, partial ? rolled : { ...rolled, partial: null });
}

/** The first day of `r` rolled up in a format older than `version` (its rollups lack what is asked), or null. */
export async function firstOlderFormat(ctx: SiteCtx, r: DayRange, version: number): Promise<string | null> {
  const p = new Params();
  const sql = `
    select to_char(min(day), 'YYYY-MM-DD') as day
    from rollup_days
    where site_id = ${p.add(ctx.siteId, 'uuid')}
      and day between ${p.add(r.from, 'date')} and ${p.add(r.to, 'date')}
      and version < ${p.add(version, 'int')}`;
  const [row] = await run(ctx.em, statement<{ day: string | null }>(sql, p));
  return row?.day ?? null;
}

/** The first and last day of `r` whose `rollup_days` record meets `condition` (its values bound in `p`), or null. */
async function daysWhose(ctx: SiteCtx, r: DayRange, condition: (p: Params) => string): Promise<DayRange | null> {
  const p = new Params();
  const sql = `
    select to_char(min(day), 'YYYY-MM-DD') as "from", to_char(max(day), 'YYYY-MM-DD') as "to"
    from rollup_days
    where site_id = ${p.add(ctx.siteId, 'uuid')}
      and day between ${p.add(r.from, 'date')} and ${p.add(r.to, 'date')}
      and ${condition(p)}`;
  const [row] = await run(ctx.em, statement<{ from: string | null; to: string | null }>(sql, p));
  return row?.from && row.to ? { from: row.from, to: row.to } : null;
}

/**
 * The first and last day of `r` rolled up without one of the custom property keys `properties` (rolled up
 * before the site kept it: its rollups hold no rows of that key), or null when every rolled-up day has them.
 */
export const daysWithoutProperties = (ctx: SiteCtx, r: DayRange, properties: readonly string[]) =>
  daysWhose(ctx, r, (p) => `not (properties @> ${p.add([...properties], 'text[]')})`);

/** The first and last day of `r` whose rollup left out one of `groupings` (too many values), or null. */
export const daysOmitting = (ctx: SiteCtx, r: DayRange, groupings: readonly string[]) =>
  daysWhose(ctx, r, (p) => `omitted_pairs && ${p.add([...groupings], 'text[]')}`);
