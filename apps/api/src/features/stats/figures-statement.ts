// The one statement per answer: the raw part and/or the rollup part, unioned and summed by value in SQL,
// so a mixed period merges its days without a round trip per source.
import { SUMMED_COUNTS, TIME_DIMENSIONS } from '../../analytics/catalogue.ts';
import type { DayRange, RawRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type Grouping, Params, q, type Statement, statement, tzParam } from '../../analytics/sql.ts';
import type { KeptDays } from './kept-days.ts';
import type { RollupShape } from './planner.ts';
import type { Question } from './question.ts';
import { rawPart } from './raw-statements.ts';
import { rollupPart } from './rollup-statements.ts';

/** The day ranges each source answers; rollup days with the shape of rollup rows they are read from. */
export interface Sources {
  raw: RawRange | null;
  rollup: { days: DayRange; shape: RollupShape } | null;
  /** Days of the raw range answered from the per-day store (kept-days.ts); the raw part reads only the rest. */
  kept?: KeptDays | null;
}

/** Each count (float8) by name. */
export type TotalsRow = Record<string, number>;

/** One value (null: no value) with its counts; `total_<count>` columns when the grand totals ride along. */
export type GroupRow = { value: string | null } & Record<string, number | string | null>;

/**
 * The kept days' rows (kept-days.ts): the raw part's columns as the store holds them, per day and value;
 * `values` narrows the rows as the raw part does.
 */
function keptPart(ctx: SiteCtx, p: Params, qn: Question, kept: KeptDays, counts: string[], grouping: Grouping): string | null {
  const entries = kept.entries[grouping];
  if (!entries?.days.length) return null;
  const columns = counts.flatMap((c) =>
    SUMMED_COUNTS[c] ? [`${q(`${c}__sum`)} numeric`, `${q(`${c}__n`)} bigint`] : [`${q(c)} float8`],
  );
  const names = counts.flatMap((c) => (SUMMED_COUNTS[c] ? [q(`${c}__sum`), q(`${c}__n`)] : [q(c)]));
  const values =
    qn.values && grouping === 'groups' ? `\n      and coalesce(x.value, '') = any(${p.add(qn.values, 'text[]')})` : '';
  return `
    select ${grouping === 'groups' ? 'x.value' : 'null::text as value'}, ${names.map((n) => `x.${n}`).join(', ')}
    from result_days r
      join unnest(${p.add(entries.specs, 'text[]')}, ${p.add(entries.days, 'date[]')}) w(spec, day) on r.spec = w.spec and r.day = w.day
      cross join lateral jsonb_to_recordset(r.rows) x(value text, ${columns.join(', ')})
    where r.site_id = ${p.add(ctx.siteId, 'uuid')} and r.kind = 'kept'${values}`;
}

function unionOfParts(ctx: SiteCtx, p: Params, qn: Question, counts: string[], sources: Sources, grouping: Grouping) {
  const parts: string[] = [];
  const { kept } = sources;
  if (kept) {
    const stored = keptPart(ctx, p, qn, kept, counts, grouping);
    if (stored) parts.push(stored);
    if (sources.raw && kept.rawDays.length) {
      parts.push(rawPart({ ...ctx, utcDays: kept.rawDays }, p, tzParam(p, ctx.timezone), qn, sources.raw, counts, grouping));
    }
  } else if (sources.raw) parts.push(rawPart(ctx, p, tzParam(p, ctx.timezone), qn, sources.raw, counts, grouping));
  if (sources.rollup) parts.push(rollupPart(ctx, p, qn, sources.rollup.days, sources.rollup.shape, counts, grouping));
  return parts.join('\n    union all');
}

/** Each count summed over the parts; a summed count (SUMMED_COUNTS) taken once from the parts' sums. */
const sums = (counts: string[]) =>
  counts
    .map((c) => {
      const summed = SUMMED_COUNTS[c];
      const sum = summed ? summed.final(`sum(${q(`${c}__sum`)})`, `sum(${q(`${c}__n`)})`) : `sum(${q(c)})`;
      return `coalesce(${sum}, 0)::float8 as ${q(c)}`;
    })
    .join(',\n      ');

/** The totals of the period: one row. */
export function totalsStatement(ctx: SiteCtx, qn: Question, counts: string[], sources: Sources): Statement<TotalsRow> {
  const p = new Params();
  const sql = `
    select
      ${sums(counts)}
    from (${unionOfParts(ctx, p, qn, counts, sources, 'totals')}
    ) parts`;
  return statement(sql, p);
}

/** Text matched literally by `ilike`: its wildcards and the escape character escaped. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One row per value of `by`; a ranked dimension (not a time) comes sorted (after `offset` rows, only
 * values containing `search`) and cut one row past the limit, so the caller sees whether rows were left
 * out. `withGrandTotals`: plain row counts add up across values, so the totals are summed over every
 * group (before searching and the limit) in the same scan.
 */
export function groupsStatement(
  ctx: SiteCtx,
  qn: Question,
  counts: string[],
  sources: Sources,
  withGrandTotals: boolean,
): Statement<GroupRow> {
  const p = new Params();
  const grandTotals = withGrandTotals
    ? counts.map((c) => `,\n      sum(coalesce(sum(${q(c)}), 0)) over ()::float8 as ${q(`total_${c}`)}`).join('')
    : '';
  const ranked = qn.by !== null && !TIME_DIMENSIONS.has(qn.by);
  const grouped = `
    select value,
      ${sums(counts)}${grandTotals}
    from (${unionOfParts(ctx, p, qn, counts, sources, 'groups')}
    ) parts
    group by value`;
  if (!ranked) return statement(grouped, p);
  // Searching and paging apply to the ranked groups, after the grand totals were summed over all of them.
  const search = qn.search ? `\n    where value::text ilike ${p.add(`%${likeEscaped(qn.search)}%`, 'text')}` : '';
  const offset = qn.offset ? ` offset ${p.add(qn.offset, 'int')}` : '';
  const sql = `
    select * from (${grouped}) ranked${search}
    order by ${q(qn.sort)} desc, value asc nulls last
    limit ${p.add(qn.limit + 1, 'int')}${offset}`;
  return statement(sql, p);
}
