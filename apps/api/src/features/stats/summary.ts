// The summary (GET /v1/sites/{id}/summary): headline measures of People traffic, always compared.
import { SUMMARY_MEASURES, type Summary, type SummaryMeasure, type SummaryMeasureName, type SummaryQuery } from '@us/shared';
import { formatForDimensions } from '../../analytics/catalogue.ts';
import { type DayRange, type RawRange, resolveRange, splitRange } from '../../analytics/range.ts';
import { importedMeta } from '../../analytics/rollup-source.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { badRequest } from '../../core/errors.ts';
import { allEnded } from '../../core/map-limited.ts';
import { comparability } from './comparability.ts';
import { comparableBefore, comparedRange, customCompareRange } from './compare-range.ts';
import { rollupFit } from './planner.ts';
import { type Source, sourceOf } from './question.ts';
import { splitForQuestion } from './rolled-days.ts';
import { checkWhere, whereFromParams } from './spec.ts';
import { rawSummaryStatement, rollupSummaryStatement, type SummaryRow } from './summary-statements.ts';

const KNOWN = new Set(['id', 'days', 'from', 'to', 'compareFrom', 'compareTo']);

interface Base {
  sessions: number;
  pageviews: number;
  fromSearch: number;
  singlePage: number;
  visibleMs: number;
}

const ZERO: Base = { sessions: 0, pageviews: 0, fromSearch: 0, singlePage: 0, visibleMs: 0 };

/** The figures of one answer row (both statements give the same columns). */
function baseOfRow(row: SummaryRow | undefined): Base {
  return {
    sessions: row?.sessions ?? 0,
    pageviews: row?.pageviews ?? 0,
    fromSearch: row?.from_search ?? 0,
    singlePage: row?.single_page ?? 0,
    visibleMs: row?.visible_ms ?? 0,
  };
}

async function rawBase(ctx: SiteCtx, days: RawRange, where: Record<string, string>): Promise<Base> {
  const [row] = await run(ctx.em, rawSummaryStatement(ctx, days, where));
  return baseOfRow(row);
}

async function rollupBase(ctx: SiteCtx, days: DayRange, filter?: { dimension: string; where: Record<string, string> }) {
  const [row] = await run(ctx.em, rollupSummaryStatement(ctx, days, filter));
  return baseOfRow(row);
}

async function baseOf(
  ctx: SiteCtx,
  r: DayRange,
  where: Record<string, string>,
): Promise<{ base: Base; source: Source; importedRead: boolean }> {
  const first = Object.keys(where)[0];
  if (splitRange(r, ctx.rawStart).rollup && first !== undefined) {
    throw badRequest(
      `where.${first}`,
      `Filtered summaries exist only for the last 90 days: choose days from ${ctx.rawStart} on, or drop the filter`,
    );
  }
  // A filter on one dimension or a kept pair is answered from rolled-up days too (rollup format 4).
  const fit = first === undefined ? null : rollupFit('pageviews', null, where);
  const filter = fit?.ok ? { dimension: fit.dimension, where } : undefined;
  // A pair a day's rollup left out (too many values) is read raw that day.
  const pairs = filter?.dimension.includes('|') ? [filter.dimension] : [];
  // Format 4 keeps the per-value measures; a dimension added later (channel, browser…) needs the format that added
  // it: a day rolled up before that has no rows of it, and read as rolled up it counted 0.
  const version = filter ? Math.max(4, formatForDimensions(Object.keys(where))) : 1;
  const split = await splitForQuestion(ctx, r, first === undefined || filter !== undefined, version, true, [], pairs);
  const [raw, rollup] = await allEnded([
    split.raw ? rawBase(ctx, split.raw, where) : ZERO,
    split.rollup ? rollupBase(ctx, split.rollup, filter) : ZERO,
  ]);
  const base: Base = {
    sessions: raw.sessions + rollup.sessions,
    pageviews: raw.pageviews + rollup.pageviews,
    fromSearch: raw.fromSearch + rollup.fromSearch,
    singlePage: raw.singlePage + rollup.singlePage,
    visibleMs: raw.visibleMs + rollup.visibleMs,
  };
  // Imported history keeps no per-value measures: a filtered summary is of the site's own data.
  return { base, source: sourceOf(split), importedRead: split.rollup !== null && filter === undefined && first === undefined };
}

const round = (n: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

function values(b: Base): Record<SummaryMeasureName, number> {
  const per = (n: number) => (b.sessions > 0 ? n / b.sessions : 0);
  return {
    sessions: b.sessions,
    pageviews: b.pageviews,
    fromSearch: b.fromSearch,
    averageSession: round(per(b.visibleMs) / 1000, 1),
    bounceRate: Math.min(100, round(per(b.singlePage) * 100, 1)),
    singlePageVisits: b.singlePage,
    pagesPerSession: round(per(b.pageviews), 2),
  };
}

/** Down is good for these; up is good for every other measure. */
const LOWER_IS_BETTER = new Set<SummaryMeasureName>(['bounceRate', 'singlePageVisits']);

export function measure(name: SummaryMeasureName, value: number, previous: number | null): SummaryMeasure {
  const change = previous === null || previous === 0 ? null : round(((value - previous) / previous) * 100, 1);
  let tone: SummaryMeasure['tone'] = 'flat';
  if (change !== null && Math.abs(change) >= 1) tone = change > 0 !== LOWER_IS_BETTER.has(name) ? 'good' : 'bad';
  return { value, previous, change, tone };
}

export async function summaryOf(ctx: SiteCtx, input: SummaryQuery): Promise<Summary> {
  const where = checkWhere('pageviews', whereFromParams(input, KNOWN));
  const range = resolveRange(input, ctx.today);
  const custom = customCompareRange(input, range);
  const prevRange = comparedRange(range, custom);
  const [current, comparable] = await allEnded([
    baseOf(ctx, range, where),
    comparability(ctx, 'pageviews', comparableBefore(range, custom)),
  ]);
  // A filtered summary of 46 to 90 days compares with days older than 90, which filtered summaries cannot read:
  // the answer goes without its comparison (it was refused whole, blaming days the caller never asked about).
  const first = Object.keys(where)[0];
  const comparison =
    comparable.available && first !== undefined && splitRange(prevRange, ctx.rawStart).rollup
      ? {
          available: false,
          reason: `The period before (${prevRange.from} to ${prevRange.to}) reaches past the last 90 days, where a filtered summary is not kept: compare a shorter period, or drop the filter`,
        }
      : comparable;
  const prev = comparison.available ? values((await baseOf(ctx, prevRange, where)).base) : null;
  const now = values(current.base);
  const imported = await importedMeta(ctx, range, current.importedRead);
  const measures = Object.fromEntries(
    SUMMARY_MEASURES.map((m) => [m, measure(m, now[m], prev ? prev[m] : null)]),
  ) as Summary['measures'];
  return {
    timezone: ctx.timezone,
    from: range.from,
    to: range.to,
    previousFrom: prevRange.from,
    previousTo: prevRange.to,
    comparison,
    source: current.source,
    ...(imported ? { imported } : {}),
    measures,
  };
}
