// Filtered tables the rollups do not keep (referrers where country = DE, anything by an unkept property):
// per UTC day, the raw part's rows of the question kept in the per-day store (`result_days`, kind `kept`),
// so the same question asked again reads a few hundred kept rows per day instead of scanning every
// raw row of the range. The first ask is answered from raw rows as before and keeps its days in the
// background, for every value of its filters at once (an entry per combination of their values, so
// another value's first ask finds its days kept); a later ask reads the days kept and current, and raw
// rows for the rest (the range's edge days in the site's time zone, days not kept yet, days with rows
// that arrived since). Visitors add up across UTC days (a visitor code never outlives its UTC day), and
// every other count is a sum or a summed pair (SUMMED_COUNTS), so the kept days and the raw days add up
// to the raw answer exactly.
// Only for sites large enough to need it (`keptLimits.minRows` over the range), and never for a day with
// more than `keptLimits.dayValues` values of one combination (kept as "over": the question stays raw).
// docs/architecture.md, "Kept filtered tables"; docs/performance/history.md, "Kept filtered tables".
import { createHash } from 'node:crypto';
import { dimensionOf, TIME_DIMENSIONS } from '../../analytics/catalogue.ts';
import { localRangeOf, splitUtcDays } from '../../analytics/day-store/days.ts';
import { LIVE_DAY_ROWS, LIVE_LAG_SECONDS } from '../../analytics/day-store/gather.ts';
import { specOf } from '../../analytics/day-store/spec.ts';
import { arrivalsOf, readHeaders, type StoredHeader } from '../../analytics/day-store/store.ts';
import { namesExit } from '../../analytics/exit-paths.ts';
import { addDays } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type Grouping, NONE, Params, statement, tzParam } from '../../analytics/sql.ts';
import { keptFills } from '../../core/observe/metrics.ts';
import { FillQueue } from './kept-fills.ts';
import type { Question } from './question.ts';
import { rawPart } from './raw-statements.ts';

const KIND = 'kept' as const;
/** Bump when the kept rows' form changes: older entries are then never read again (retention drops them). */
const KEPT_FORMAT = 2;

export const keptLimits = {
  /** Pageview and event rows over the range's whole UTC days from which a question is kept. */
  minRows: 100_000,
  /** Values of one day and combination of the filters' values past which it is not kept (its questions stay raw). */
  dayValues: 10_000,
  /** Combinations of the filters' values in one day past which a fill keeps only the asked one. */
  dayCombinations: 2_000,
  /**
   * Rows of one day's fill (every combination's values) past which the same: a fill of every value stores
   * no more than one value's fill may.
   */
  dayRows: 10_000,
  /** Fills waiting or running in this process past which a new one is left for a later ask. */
  queued: 64,
  /** The same, for one site (sites take turns: kept-fills.ts): a dashboard's questions, not a flood's. */
  queuedPerSite: 8,
};

/** What the figures statement reads from the store, and which UTC days it still reads raw. */
export interface KeptDays {
  /** Per grouping the statement reads, the kept entries' (spec, day) pairs. */
  entries: Partial<Record<Grouping, { specs: string[]; days: string[] }>>;
  /** The UTC days read raw (the question's range still applies to their rows). */
  rawDays: string[];
}

/** Whether a question read from raw rows alone can be kept per day: a ranked table or totals, no exit dimension. */
export function keepable(qn: Question): boolean {
  const names = [...(qn.by ? [qn.by] : []), ...Object.keys(qn.where)];
  return (qn.by === null || !TIME_DIMENSIONS.has(qn.by)) && !namesExit(names);
}

/** The filters' dimensions in one order: a kept day's combinations of their values are named in it. */
const filterDims = (qn: Question) => Object.keys(qn.where).sort();

/**
 * Whether one fill keeps a day for every value of the question's filters (so asking for another value
 * finds its days kept): each filter names one value. A filter on no value (`(none)`) matches two groups
 * (null and ''), so such a question keeps its own values only.
 */
const keepsEveryValue = (qn: Question) => !Object.values(qn.where).includes(NONE);

/**
 * One combination of the filters' values as text, the same here as in SQL (filterKeySql): each value as
 * its length in bytes, a colon and the value; 'n' for a null one. A filter on no value writes 'x', which
 * no row's key holds, so such a question's entries are its own.
 */
function keyTextOf(qn: Question): string {
  return filterDims(qn)
    .map((d) => {
      const v = qn.where[d] as string;
      return v === NONE ? 'x' : `${Buffer.byteLength(v, 'utf8')}:${v}`;
    })
    .join('');
}

/** A row's combination of the filters' values, as keyTextOf writes it. */
function filterKeySql(qn: Question): string {
  const parts = filterDims(qn).map((d) => {
    const expr = dimensionOf(qn.metrics, d)?.sql;
    if (!expr) throw new Error(`no SQL for dimension ${d}`);
    return `case when (${expr}) is null then 'n' else octet_length((${expr})::text) || ':' || (${expr})::text end`;
  });
  return parts.length ? `(${parts.join(' || ')})` : `''::text`;
}

/**
 * The raw part a day is kept from, with a `kept_key` column naming each row's combination of the filters'
 * values: every combination (no filter condition) when the fill keeps `every` value, else the question's own
 * rows under its key. Every value of `by` too (`values` narrows only what an answer reads).
 */
function dayPart(
  ctx: SiteCtx,
  p: Params,
  qn: Question,
  counts: readonly string[],
  grouping: Grouping,
  day: string,
  every: boolean,
): string {
  const whole = { ...qn, values: undefined, where: every ? {} : qn.where };
  const key = every ? filterKeySql(qn) : p.add(keyTextOf(qn), 'text');
  return rawPart(
    { ...ctx, utcDays: [day] },
    p,
    tzParam(p, ctx.timezone),
    whole,
    localRangeOf(day, ctx.timezone),
    [...counts],
    grouping,
    key,
  );
}

/**
 * Everything the kept rows of one grouping depend on besides the day's bot windows (specOf adds those) and
 * the filters' values (each combination's entry is named by them, entrySpec): the part's SQL text itself, so
 * a release that counts differently never reads what an older one kept.
 */
function definitionOf(ctx: SiteCtx, qn: Question, counts: readonly string[], grouping: Grouping): unknown {
  return [
    KIND,
    KEPT_FORMAT,
    dayPart(ctx, new Params(), qn, counts, grouping, '2000-01-01', keepsEveryValue(qn)),
    filterDims(qn),
    qn.lane,
    // Visitors are counted per local day, and a UTC day can hold two of them.
    ctx.timezone,
  ];
}

/** The entry of one combination of the filters' values under a day's prefix (its spec alone marks the day's fill). */
const entrySpec = (prefix: string, keyText: string) => `${prefix}/${createHash('md5').update(keyText, 'utf8').digest('hex')}`;

/**
 * Which of the question's days the store answers, or null: not worth it (a small site), not keepable,
 * or a day too varied to keep. Days missing or outdated are kept in the background for the next ask.
 * A day whose fill kept every combination of the filters' values and none of this question's had no row
 * of it: answered (with nothing), neither kept nor raw.
 */
export async function keptDays(
  ctx: SiteCtx,
  qn: Question,
  counts: readonly string[],
  groupings: readonly Grouping[],
): Promise<KeptDays | null> {
  if (!keepable(qn) || !groupings.length) return null;
  const split = splitUtcDays(qn.range, ctx.timezone, addDays(ctx.rawStart, 1));
  if (!split.stored.length) return null;
  const arrivals = await arrivalsOf(ctx.em, ctx.siteId, split.stored);
  let rows = 0;
  for (const n of arrivals.values()) rows += n;
  if (rows < keptLimits.minRows) return null;
  const every = keepsEveryValue(qn);
  const keyText = keyTextOf(qn);
  const wanted = groupings.flatMap((grouping) => {
    const definition = definitionOf(ctx, qn, counts, grouping);
    return split.stored.map((day) => {
      const prefix = specOf(definition, ctx.windows, day);
      return { grouping, day, spec: entrySpec(prefix, keyText), mark: every ? prefix : null };
    });
  });
  const marks = wanted.flatMap((w) => (w.mark === null ? [] : [{ spec: w.mark, day: w.day }]));
  const headers = await readHeaders(ctx.em, ctx.siteId, KIND, [...wanted, ...marks]);
  const found = new Map(headers.map((h) => [`${h.spec} ${h.day}`, h]));
  // A combination too varied to keep on some day: the question stays raw.
  if (wanted.some((w) => found.get(`${w.spec} ${w.day}`)?.list === false)) return null;
  const usable = new Set(split.stored);
  const none = new Set<string>();
  const toFill = new Set<string>();
  // Days with too many combinations to keep them all: filled with the question's own rows.
  const ownOnly = new Set<string>();
  const isCurrent = (x: StoredHeader | undefined, now: number) => x !== undefined && (x.seen === now || now >= LIVE_DAY_ROWS);
  for (const w of wanted) {
    const h = found.get(`${w.spec} ${w.day}`);
    const filled = w.mark === null ? undefined : found.get(`${w.mark} ${w.day}`);
    const now = arrivals.get(w.day) ?? 0;
    // No entry of its own, but a fill of every combination as current: the day has no row of the question.
    const empty = h === undefined && filled?.list === true && isCurrent(filled, now);
    if (empty) none.add(`${w.grouping} ${w.day}`);
    if (!isCurrent(h, now) && !empty) usable.delete(w.day);
    const basis = h ?? (filled?.list ? filled : undefined);
    if (!basis || (basis.seen !== now && basis.age > LIVE_LAG_SECONDS)) toFill.add(w.day);
    if (filled?.list === false) ownOnly.add(w.day);
  }
  if (toFill.size) fillLater(ctx, qn, counts, groupings, [...toFill].sort(), ownOnly);
  const entries: KeptDays['entries'] = {};
  for (const w of wanted) {
    if (!usable.has(w.day) || none.has(`${w.grouping} ${w.day}`)) continue;
    const e = entries[w.grouping] ?? { specs: [], days: [] };
    entries[w.grouping] = e;
    e.specs.push(w.spec);
    e.days.push(w.day);
  }
  const rawDays = [...split.raw, ...split.stored.filter((d) => !usable.has(d))].sort();
  return { entries, rawDays };
}

/**
 * Keeps one UTC day of one grouping from one read of the day's raw rows, written by PostgreSQL itself (no
 * round trip of the rows), as of arrivals version `seen`. Keeping `every` value: an entry per combination of
 * the filters' values with a row that day, and the day's prefix saying every combination was kept; past
 * `keptLimits.dayCombinations` combinations or `keptLimits.dayRows` rows, only the asked combination and the
 * prefix as "over". Else the asked combination alone, from its own rows. A combination with more than
 * `keptLimits.dayValues` values is kept as "over" (its questions stay raw); the asked one without a row, as [].
 */
function keepDayStatement(
  ctx: SiteCtx,
  qn: Question,
  counts: readonly string[],
  grouping: Grouping,
  day: string,
  seen: number,
  every: boolean,
) {
  const p = new Params();
  const part = dayPart(ctx, p, qn, counts, grouping, day, every);
  const prefix = p.add(specOf(definitionOf(ctx, qn, counts, grouping), ctx.windows, day), 'text');
  const asked = p.add(keyTextOf(qn), 'text');
  // (Added only when used: a parameter PostgreSQL never sees has no type it can tell.)
  const all = every
    ? `(select combinations <= ${p.add(keptLimits.dayCombinations, 'int')} and n <= ${p.add(keptLimits.dayRows, 'int')} from shape)`
    : 'false';
  const everyFill = every
    ? `
       union all
       select ${prefix}, case when ${all} then '[]'::jsonb else '"over"'::jsonb end`
    : '';
  return statement<never>(
    `with part as materialized (${part}),
     shape as (select count(distinct kept_key) as combinations, count(*) as n from part),
     entries as (
       select ${prefix} || '/' || md5(kept_key) as spec,
              case when count(*) > ${p.add(keptLimits.dayValues, 'int')} then '"over"'::jsonb
                   else jsonb_agg(to_jsonb(part) - 'kept_key') end as rows
         from part
        where kept_key = ${asked} or ${all}
        group by kept_key
       union all
       select ${prefix} || '/' || md5(${asked}), '[]'::jsonb
        where not exists (select 1 from part where kept_key = ${asked})${everyFill}
     )
     insert into result_days (site_id, kind, spec, day, rows, seen, computed_at)
     select ${p.add(ctx.siteId, 'uuid')}, '${KIND}', spec, ${p.add(day, 'date')}, rows, ${p.add(seen, 'bigint')}, now()
       from entries
     on conflict (site_id, kind, spec, day) do update set rows = excluded.rows, seen = excluded.seen, computed_at = excluded.computed_at`,
    p,
  );
}

/** Fills run one at a time, each site's in turn. */
const fills = new FillQueue(keptLimits);
/** Moved by an orderly stop: fills queued before it keep no more days (a server started later fills again). */
let generation = 0;

function fillLater(
  ctx: SiteCtx,
  qn: Question,
  counts: readonly string[],
  groupings: readonly Grouping[],
  days: string[],
  ownOnly: ReadonlySet<string>,
) {
  // A fill of every value serves each value's ask; a question on no value, or on days of too many
  // combinations, fills its own.
  const every = keepsEveryValue(qn);
  const own = every && !ownOnly.size ? null : qn.where;
  const key = JSON.stringify([ctx.siteId, own, groupings.map((g) => definitionOf(ctx, qn, counts, g))]);
  const queuedIn = generation;
  const fill = async () => {
    // Versions before the figures: rows arriving meanwhile make a kept day outdated, never wrongly current.
    const arrivals = await arrivalsOf(ctx.em, ctx.siteId, days);
    for (const day of days) {
      for (const g of groupings) {
        if (generation !== queuedIn) return;
        await run(ctx.em, keepDayStatement(ctx, qn, counts, g, day, arrivals.get(day) ?? 0, every && !ownOnly.has(day)));
      }
    }
  };
  fills.add(ctx.siteId, key, () =>
    fill().then(
      () => keptFills.inc({ outcome: 'done' }),
      (err: unknown) => {
        keptFills.inc({ outcome: 'failed' });
        throw err;
      },
    ),
  );
}

/** How many questions' fills are waiting or running in this process. */
export const keptFillsPending = () => fills.size;

/** How many fills this process has queued since it started. */
export const keptFillsQueued = () => fills.added;

/** Resolves once the fills under way have ended (tests, the bench). */
export const keptFillsSettled = (): Promise<void> => fills.settled();

/** An orderly stop: the fills queued keep no more days; resolves once the statement running has ended. */
export function stopKeptFills(): Promise<void> {
  generation++;
  return keptFillsSettled();
}
