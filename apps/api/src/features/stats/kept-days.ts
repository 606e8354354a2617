// Filtered tables the rollups do not keep (referrers where country = DE, anything by an unkept property):
// per UTC day, the raw part's rows of the question kept in the per-day store (`result_days`, kind `kept`),
// so the same question asked again reads a few hundred kept rows per day instead of scanning every
// raw row of the range. The first ask is answered from raw rows as before and keeps its days in the
// background; a later ask reads the days kept and current, and raw rows for the rest (the range's edge
// days in the site's time zone, days not kept yet, days with rows that arrived since). Visitors add up
// across UTC days (a visitor code never outlives its UTC day), and every other count is a sum or a
// summed pair (SUMMED_COUNTS), so the kept days and the raw days add up to the raw answer exactly.
// Only for sites large enough to need it (`keptLimits.minRows` over the range), and never for a day with
// more than `keptLimits.dayValues` values (kept as "over": the question stays raw).
// docs/architecture.md, "Kept filtered tables"; docs/performance/history.md, "Kept filtered tables".
import { TIME_DIMENSIONS } from '../../analytics/catalogue.ts';
import { localRangeOf, splitUtcDays } from '../../analytics/day-store/days.ts';
import { LIVE_DAY_ROWS, LIVE_LAG_SECONDS } from '../../analytics/day-store/gather.ts';
import { specOf } from '../../analytics/day-store/spec.ts';
import { arrivalsOf, readHeaders } from '../../analytics/day-store/store.ts';
import { namesExit } from '../../analytics/exit-paths.ts';
import { addDays } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type Grouping, Params, statement, tzParam } from '../../analytics/sql.ts';
import { FillQueue } from './kept-fills.ts';
import type { Question } from './question.ts';
import { rawPart } from './raw-statements.ts';

const KIND = 'kept' as const;
/** Bump when the kept rows' form changes: older entries are then never read again (retention drops them). */
const KEPT_FORMAT = 1;

export const keptLimits = {
  /** Pageview and event rows over the range's whole UTC days from which a question is kept. */
  minRows: 100_000,
  /** Values of one day past which the day is not kept (the question stays raw). */
  dayValues: 10_000,
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

/** The raw part a day is kept from: every value of the question (`values` narrows only what an answer reads). */
function dayPart(ctx: SiteCtx, p: Params, qn: Question, counts: readonly string[], grouping: Grouping, day: string): string {
  const whole = { ...qn, values: undefined };
  return rawPart(
    { ...ctx, utcDays: [day] },
    p,
    tzParam(p, ctx.timezone),
    whole,
    localRangeOf(day, ctx.timezone),
    [...counts],
    grouping,
  );
}

/**
 * Everything the kept rows of one grouping depend on besides the day's bot windows (specOf adds those):
 * the part's SQL text itself, so a release that counts differently never reads what an older one kept.
 */
function definitionOf(ctx: SiteCtx, qn: Question, counts: readonly string[], grouping: Grouping): unknown {
  return [
    KIND,
    KEPT_FORMAT,
    dayPart(ctx, new Params(), qn, counts, grouping, '2000-01-01'),
    Object.entries(qn.where).sort(),
    qn.lane,
    // Visitors are counted per local day, and a UTC day can hold two of them.
    ctx.timezone,
  ];
}

/**
 * Which of the question's days the store answers, or null: not worth it (a small site), not keepable,
 * or a day too varied to keep. Days missing or outdated are kept in the background for the next ask.
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
  const wanted = groupings.flatMap((grouping) => {
    const definition = definitionOf(ctx, qn, counts, grouping);
    return split.stored.map((day) => ({ grouping, day, spec: specOf(definition, ctx.windows, day) }));
  });
  const headers = await readHeaders(ctx.em, ctx.siteId, KIND, wanted);
  const found = new Map(headers.map((h) => [`${h.spec} ${h.day}`, h]));
  if (headers.some((h) => !h.list)) return null;
  const usable = new Set(split.stored);
  const toFill = new Set<string>();
  for (const w of wanted) {
    const h = found.get(`${w.spec} ${w.day}`);
    const now = arrivals.get(w.day) ?? 0;
    const current = h !== undefined && (h.seen === now || now >= LIVE_DAY_ROWS);
    if (!current) usable.delete(w.day);
    if (!h || (h.seen !== now && h.age > LIVE_LAG_SECONDS)) toFill.add(w.day);
  }
  if (toFill.size) fillLater(ctx, qn, counts, groupings, [...toFill].sort());
  const entries: KeptDays['entries'] = {};
  for (const w of wanted) {
    if (!usable.has(w.day)) continue;
    const e = entries[w.grouping] ?? { specs: [], days: [] };
    entries[w.grouping] = e;
    e.specs.push(w.spec);
    e.days.push(w.day);
  }
  const rawDays = [...split.raw, ...split.stored.filter((d) => !usable.has(d))].sort();
  return { entries, rawDays };
}

/**
 * Keeps one UTC day of one grouping: the raw part's rows over that day alone, written by PostgreSQL
 * itself (no round trip of the rows), as of arrivals version `seen`; a day past `keptLimits.dayValues`
 * values is kept as "over".
 */
function keepDayStatement(ctx: SiteCtx, qn: Question, counts: readonly string[], grouping: Grouping, day: string, seen: number) {
  const p = new Params();
  const part = dayPart(ctx, p, qn, counts, grouping, day);
  const spec = specOf(definitionOf(ctx, qn, counts, grouping), ctx.windows, day);
  return statement<never>(
    `insert into result_days (site_id, kind, spec, day, rows, seen, computed_at)
     select ${p.add(ctx.siteId, 'uuid')}, '${KIND}', ${p.add(spec, 'text')}, ${p.add(day, 'date')},
            case when count(*) > ${p.add(keptLimits.dayValues, 'int')} then '"over"'::jsonb
                 else coalesce(jsonb_agg(to_jsonb(part)), '[]'::jsonb) end,
            ${p.add(seen, 'bigint')}, now()
       from (${part}) part
     on conflict (site_id, kind, spec, day) do update set rows = excluded.rows, seen = excluded.seen, computed_at = excluded.computed_at`,
    p,
  );
}

/** Fills run one at a time, each site's in turn. */
const fills = new FillQueue(keptLimits);
/** Moved by an orderly stop: fills queued before it keep no more days (a server started later fills again). */
let generation = 0;

function fillLater(ctx: SiteCtx, qn: Question, counts: readonly string[], groupings: readonly Grouping[], days: string[]) {
  const key = JSON.stringify([ctx.siteId, groupings.map((g) => definitionOf(ctx, qn, counts, g))]);
  const queuedIn = generation;
  fills.add(ctx.siteId, key, async () => {
    // Versions before the figures: rows arriving meanwhile make a kept day outdated, never wrongly current.
    const arrivals = await arrivalsOf(ctx.em, ctx.siteId, days);
    for (const day of days) {
      for (const g of groupings) {
        if (generation !== queuedIn) return;
        await run(ctx.em, keepDayStatement(ctx, qn, counts, g, day, arrivals.get(day) ?? 0));
      }
    }
  });
}

/** How many questions' fills are waiting or running in this process. */
export const keptFillsPending = () => fills.size;

/** Resolves once the fills under way have ended (tests, the bench). */
export const keptFillsSettled = (): Promise<void> => fills.settled();

/** An orderly stop: the fills queued keep no more days; resolves once the statement running has ended. */
export function stopKeptFills(): Promise<void> {
  generation++;
  return keptFillsSettled();
}
