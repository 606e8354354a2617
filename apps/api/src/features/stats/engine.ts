// The stats engine as a pipeline of named steps, like Plausible's query_runner: plan the question
// (planner.ts, pure), choose the days each source answers, build the statements, run them, shape the
// rows. A refusal of the planner becomes the 400 here, and only here.
import type { StatsResult, StatsRow } from '@us/shared';
import { CATALOGUE, dimensionOf, formatForDimensions, SUMMED_COUNTS, TIME_DIMENSIONS } from '../../analytics/catalogue.ts';
import { namesExit } from '../../analytics/exit-paths.ts';
import { addDays, splitRange } from '../../analytics/range.ts';
import { VALUES_PER_DAY } from '../../analytics/rollup/rollup-tally.ts';
import { importedMeta } from '../../analytics/rollup-source.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { seriesKeys } from '../../analytics/time-buckets.ts';
import { type AppError, badRequest } from '../../core/errors.ts';
import { allEnded } from '../../core/map-limited.ts';
import { comparability } from './comparability.ts';
import { comparableBefore, comparedRange } from './compare-range.ts';
import { type GroupRow, groupsStatement, type Sources, totalsStatement } from './figures-statement.ts';
import { keptDays } from './kept-days.ts';
import { type FiguresPlan, planFigures, propertiesNamed, type Refusal, type RollupShape } from './planner.ts';
import { countNames, type Figures, type Question, sourceOf } from './question.ts';
import { daysOmitting, daysWithoutProperties, firstOlderFormat, splitForQuestion } from './rolled-days.ts';
import { withoutImported } from './rollup-statements.ts';
import type { NormalSpec } from './spec.ts';

const refusalError = (refusal: Refusal): AppError => badRequest(refusal.field, refusal.reason);

/** The non-time dimensions a question names (its `by`, then its `where` keys). */
const dimensionsOf = (qn: Question) => [...(qn.by && !TIME_DIMENSIONS.has(qn.by) ? [qn.by] : []), ...Object.keys(qn.where)];

/**
 * The rollup format a plan needs: pairs from version 2 on, summed counts (leave averages, event values)
 * and later dimensions from the version that added them (SUMMED_COUNTS, DIMENSION_SINCE).
 */
function versionFor(qn: Question, plan: FiguresPlan & { rollups: RollupShape }): number {
  const summed = plan.counts.map((c) => SUMMED_COUNTS[c]?.since ?? 1);
  return Math.max(...summed, usesPair(plan.rollups) ? 2 : 1, formatForDimensions(dimensionsOf(qn)));
}

const usesPair = (shape: RollupShape) => shape.groups.includes('|') || shape.totals.includes('|');
/** The groupings a rollup shape reads, the day total ('') aside: a day's rollup may have left any of them out. */
const groupingsRead = (shape: RollupShape) => [shape.groups, shape.totals].filter((d) => d !== '');

/**
 * Days older than the raw window rolled up in a format that lacks what the question names (a pair, or a
 * dimension kept later): refused, naming them and the field. (Summed counts of such days are simply not
 * there: leave averages and event values are over the days that keep them.)
 */
async function refuseOlderFormats(ctx: SiteCtx, qn: Question, shape: RollupShape): Promise<void> {
  const old = splitRange(qn.range, ctx.rawStart).rollup;
  const later = dimensionsOf(qn).find((d) => formatForDimensions([d]) > 1);
  const needed = Math.max(usesPair(shape) ? 2 : 1, formatForDimensions(dimensionsOf(qn)));
  if (!old || needed === 1) return;
  const stale = await firstOlderFormat(ctx, old, needed);
  if (!stale) return;
  const after = `choose days from ${addDays(old.to, 1)} on`;
  if (later) {
    const label = dimensionOf(qn.metrics, later)?.label.toLowerCase();
    throw badRequest(
      later === qn.by ? 'by' : `where.${later}`,
      `Days from ${stale} to ${old.to} were rolled up before the ${label} was kept: ${after}`,
    );
  }
  const [field] = Object.keys(qn.where);
  throw badRequest(
    `where.${field}`,
    `Days from ${stale} to ${old.to} were rolled up before two dimensions together were kept: ${after}, or drop one dimension`,
  );
}

/**
 * Days older than the raw window rolled up before the site kept a custom property the question names
 * (the planner refused keys it does not keep): refused, naming the days and the field.
 */
async function refuseDaysWithoutProperties(ctx: SiteCtx, qn: Question): Promise<void> {
  const old = splitRange(qn.range, ctx.rawStart).rollup;
  const named = propertiesNamed(qn.by, qn.where);
  const [first] = named;
  if (!old || !first) return;
  const stale = await daysWithoutProperties(
    ctx,
    old,
    named.map((p) => p.key),
  );
  if (!stale) return;
  throw badRequest(
    first.field,
    `Days from ${stale.from} to ${stale.to} were rolled up before the site kept the property ${first.key} (keptProperties): choose days from ${addDays(stale.to, 1)} on`,
  );
}

/**
 * Days older than the raw window whose rollup left out a grouping the question reads (too many values: a pair
 * past rollup-tally.ts's PAIR_VALUES_PER_DAY, or the day's largest grouping past VALUES_PER_DAY): refused,
 * naming the days and the field.
 */
async function refuseDaysOmittingGroupings(ctx: SiteCtx, qn: Question, shape: RollupShape): Promise<void> {
  const old = splitRange(qn.range, ctx.rawStart).rollup;
  const groupings = groupingsRead(shape);
  if (!old || !groupings.length) return;
  const omitted = await daysOmitting(ctx, old, groupings);
  if (!omitted) return;
  const [field] = Object.keys(qn.where);
  const after = addDays(omitted.to, 1);
  if (field !== undefined && usesPair(shape)) {
    throw badRequest(
      `where.${field}`,
      `Days from ${omitted.from} to ${omitted.to} had too many values of two dimensions together to keep them: choose days from ${after} on, or drop one dimension`,
    );
  }
  throw badRequest(
    field !== undefined && shape.groups === '' ? `where.${field}` : 'by',
    `Days from ${omitted.from} to ${omitted.to} had too many values of ${shape.groups || shape.totals} to keep them (the rollup keeps ${VALUES_PER_DAY.toLocaleString('en')} values a day): choose days from ${after} on`,
  );
}

/** The days each source answers: rolled-up recent days move to the rollups when the plan lets them. */
async function chooseSources(ctx: SiteCtx, qn: Question, plan: FiguresPlan): Promise<Sources> {
  // No rollup shape: the planner has refused any day older than the raw window.
  if (!plan.rollups) return { raw: qn.range, rollup: null };
  await refuseOlderFormats(ctx, qn, plan.rollups);
  await refuseDaysWithoutProperties(ctx, qn);
  await refuseDaysOmittingGroupings(ctx, qn, plan.rollups);
  const version = versionFor(qn, { ...plan, rollups: plan.rollups });
  const properties = propertiesNamed(qn.by, qn.where).map((p) => p.key);
  const split = await splitForQuestion(
    ctx,
    qn.range,
    plan.recentFromRollups,
    version,
    !namesExit(dimensionsOf(qn)),
    properties,
    groupingsRead(plan.rollups),
  );
  return { raw: split.raw, rollup: split.rollup && { days: split.rollup, shape: plan.rollups } };
}

/** Each count of a row as a number, 0 where missing; `prefix` reads the `total_<count>` columns instead. */
const countsOf = (row: Record<string, unknown> | undefined, counts: string[], prefix = '') =>
  Object.fromEntries(counts.map((c) => [c, Number(row?.[prefix + c] ?? 0)]));

/** Rows by value: a series gets every day, hour, week or month of the range (zeros filled), a ranked table its limit. */
function shapeRows(qn: Question, groups: readonly GroupRow[], counts: string[]): { rows: StatsRow[]; truncated: boolean } {
  const rows = groups.map((r) => ({ value: r.value, counts: countsOf(r, counts) }));
  const keys = seriesKeys(qn.by, qn.range);
  if (keys) {
    const byValue = new Map(rows.map((r) => [r.value, r.counts]));
    return { rows: keys.map((k) => ({ value: k, counts: byValue.get(k) ?? countsOf(undefined, counts) })), truncated: false };
  }
  if (rows.length > qn.limit) return { rows: rows.slice(0, qn.limit), truncated: true };
  return { rows, truncated: false };
}

/** Totals and rows of one period. */
export async function figures(ctx: SiteCtx, qn: Question): Promise<Figures> {
  const plan = planFigures(qn, ctx.rawStart, ctx.keptProperties);
  if (!plan.ok) throw refusalError(plan);
  const sources = await chooseSources(ctx, qn, plan);
  const { counts } = plan;
  // Raw rows alone answer it: the days a same question kept (kept-days.ts) are read from the store.
  if (!sources.rollup && sources.raw) {
    sources.kept = await keptDays(ctx, qn, counts, [
      ...(qn.by ? ['groups' as const] : []),
      ...(plan.totalsFromGroups ? [] : ['totals' as const]),
    ]);
  }
  const [totalRows, groups] = await allEnded([
    plan.totalsFromGroups ? null : run(ctx.em, totalsStatement(ctx, qn, counts, sources)),
    qn.by ? run(ctx.em, groupsStatement(ctx, qn, counts, sources, plan.totalsFromGroups)) : [],
  ]);
  // Totals that ride on the groups' rows are gone when no row comes back: a search matching nothing, an offset past
  // the last row. They are asked on their own then (totals stay those of every value), from raw rows.
  const noRowToCarry = plan.totalsFromGroups && groups.length === 0 && (!!qn.search || (qn.offset ?? 0) > 0);
  const alone = noRowToCarry ? await run(ctx.em, totalsStatement(ctx, qn, counts, { ...sources, kept: null })) : null;
  const totals = totalRows
    ? countsOf(totalRows[0], counts)
    : alone
      ? countsOf(alone[0], counts)
      : countsOf(groups[0], counts, 'total_');
  const importedRead =
    sources.rollup !== null && !withoutImported(sources.rollup.shape) && !qn.withoutImported && qn.lane === 'human';
  return { totals, ...shapeRows(qn, groups, counts), source: sourceOf(sources), importedRead };
}

/** A checked spec answered, with the previous period when asked. */
export async function answer(ctx: SiteCtx, spec: NormalSpec, opts: Pick<Question, 'withoutImported'> = {}): Promise<StatsResult> {
  const qn: Question = { ...spec, ...opts };
  const current = await figures(ctx, qn);
  // Imported history is People traffic (lane human): other lanes have none to leave out.
  const imported = spec.lane === 'human' ? await importedMeta(ctx, spec.range, current.importedRead) : undefined;
  const result: StatsResult = {
    metrics: spec.metrics,
    by: spec.by,
    lane: spec.lane,
    timezone: ctx.timezone,
    from: spec.range.from,
    to: spec.range.to,
    source: current.source,
    counts: countNames(spec.metrics, spec.sort),
    sort: spec.sort,
    totals: current.totals,
    rows: current.rows,
    truncated: current.truncated,
    ...(imported ? { imported } : {}),
  };
  if (spec.compare) {
    const custom = spec.compareRange ?? null;
    const comparison = await comparability(ctx, CATALOGUE[spec.metrics].table, comparableBefore(spec.range, custom));
    result.comparison = comparison;
    const range = comparedRange(spec.range, custom);
    // The period before may reach days that cannot answer this question (past the raw window, where a pair or a
    // property is not kept): the answer then goes without it, saying why. It was refused whole, naming a field of
    // the period asked for, which could answer.
    const before = comparison.available ? planFigures({ ...qn, range }, ctx.rawStart, ctx.keptProperties) : null;
    if (before && !before.ok) {
      result.comparison = {
        available: false,
        reason: `The period before (${range.from} to ${range.to}) cannot answer this question: ${before.reason}`,
      };
      result.previous = null;
    } else if (comparison.available) {
      const prev = await figures(ctx, { ...qn, range });
      result.previous = { from: range.from, to: range.to, totals: prev.totals, rows: prev.rows };
    } else result.previous = null;
  }
  return result;
}
