// Deciding before any SQL runs, like Plausible's table_decider: whether a question can be answered,
// which counts it reads, and which sources may answer which days. Pure: every outcome is a value, a
// refusal too (the engine turns it into the 400); which recent days are rolled up already is a fact of
// the database, looked up afterwards (rolled-days.ts) and fed back to splitDays.
import { type MetricSet, PROPERTY_PREFIX, STATS_LIMITS } from '@us/shared';
import { CATALOGUE, pairDimension, ROLLUP_PAIRS, TIME_DIMENSIONS } from '../../analytics/catalogue.ts';
import { addDays, type DayRange, diffDays, type RawRange, splitRange } from '../../analytics/range.ts';
import { countNames, type Question } from './question.ts';

/** The longest hourly series: the raw rows' days, today and tomorrow (a viewer's zone ahead of the site's). */
const HOUR_SERIES_DAYS = STATS_LIMITS.rawDays + 2;

/** A question the engine cannot answer: the spec field to change and what to do instead. */
export interface Refusal {
  ok: false;
  field: string;
  reason: string;
}

/**
 * The dimension rows a rollup answer reads: `groups` for its rows, `totals` for its totals ('' = day
 * totals, `a|b` = a pair's rows).
 */
export interface RollupShape {
  groups: string;
  totals: string;
}

export interface FiguresPlan {
  ok: true;
  /** The counts read, the sort first. */
  counts: string[];
  /** How rollup rows answer it; null when they cannot, and then every day lies in the raw window. */
  rollups: RollupShape | null;
  /** Recent days already rolled up may be read from rollups: the same figures, far fewer rows. */
  recentFromRollups: boolean;
  /** A ranked table of plain row counts: its grand totals ride along the grouped statement (one scan, not two). */
  totalsFromGroups: boolean;
}

/** Which days come from rollups and which from raw rows (`raw.after`: the current day's rows from then on). */
export interface DaySplit {
  rollup: DayRange | null;
  raw: RawRange | null;
}

/** Recent days already rolled up: complete up to `complete` (or none), then maybe the current day `partial` up to an instant. */
export interface RolledUp {
  complete: string | null;
  partial: { day: string; until: string } | null;
}

const refuse = (field: string, reason: string): Refusal => ({ ok: false, field, reason });

/** The custom property keys a question names (its `by` and `where` dimensions `prop:<key>`), each with its field. */
export function propertiesNamed(by: string | null, where: Record<string, string>): { key: string; field: string }[] {
  const named = [...(by?.startsWith(PROPERTY_PREFIX) ? [{ name: by, field: 'by' }] : [])];
  for (const name of Object.keys(where)) if (name.startsWith(PROPERTY_PREFIX)) named.push({ name, field: `where.${name}` });
  const out: { key: string; field: string }[] = [];
  for (const { name, field } of named) {
    const key = name.slice(PROPERTY_PREFIX.length);
    if (!out.some((p) => p.key === key)) out.push({ key, field });
  }
  return out;
}

/**
 * A rollup row holds one dimension besides `day`, or one of the set's dimension pairs (ROLLUP_PAIRS):
 * `by` (when not a time) and the `where` keys together may name one dimension, or the two of a pair.
 * Gives the rollup dimension ('' for day totals, `a|b` for a pair), or the refusal naming the dimension
 * too many. A custom property (`prop:<key>`) is one dimension when `properties` (rollups keep the keys a
 * site keeps, and which days hold a key is for the caller to check: rolled-days.ts); else refused.
 */
export function rollupFit(
  set: MetricSet,
  by: string | null,
  where: Record<string, string>,
  properties = false,
): { ok: true; dimension: string } | Refusal {
  const seen: string[] = by && !TIME_DIMENSIONS.has(by) ? [by] : [];
  const property = properties ? undefined : propertiesNamed(by, where)[0];
  if (property) {
    return refuse(
      property.field,
      `Custom properties are read from raw rows here: ${PROPERTY_PREFIX}${property.key} is only possible within the last 90 days; choose later days`,
    );
  }
  for (const key of Object.keys(where)) {
    if (seen.includes(key)) continue;
    const pair = seen.length === 1 ? pairDimension(set, seen[0] as string, key) : null;
    if (seen.length && !pair) {
      const pairs = (ROLLUP_PAIRS[set] ?? []).map(([a, b]) => `${a} with ${b}`);
      return refuse(
        `where.${key}`,
        `Data older than 90 days is kept per single dimension${pairs.length ? ` and for ${pairs.join(', ')}` : ''}: ${[...seen, key].join(' with ')} together is only possible within the last 90 days; drop one or choose later days`,
      );
    }
    seen.push(key);
  }
  if (seen.length === 2) return { ok: true, dimension: pairDimension(set, seen[0] as string, seen[1] as string) as string };
  return { ok: true, dimension: seen[0] ?? '' };
}

/** The rollup dimension holding a question's totals: its `where` keys ('' none, a dimension, a pair). */
function totalsDimension(qn: Question): string {
  const [a, b] = Object.keys(qn.where);
  if (a === undefined) return '';
  return b === undefined ? a : (pairDimension(qn.metrics, a, b) as string);
}

/**
 * How to answer a question whose first raw day is `rawStart`, or why it cannot be answered; `kept`: the
 * custom property keys the site keeps in its rollups (a property of another key has only raw rows).
 */
export function planFigures(qn: Question, rawStart: string, kept: readonly string[] = []): FiguresPlan | Refusal {
  const hasOldDays = splitRange(qn.range, rawStart).rollup !== null;
  if (qn.by === 'hour' && hasOldDays) {
    return refuse('by', `Hourly series exist only for the last 90 days: choose days from ${rawStart} on, or by=day`);
  }
  // The raw days and tomorrow (a zone ahead): longer is future days, each adding 24 empty rows to the answer.
  if (qn.by === 'hour' && diffDays(qn.range.from, qn.range.to) + 1 > HOUR_SERIES_DAYS) {
    return refuse('by', `Hourly series cover at most ${HOUR_SERIES_DAYS} days: choose a shorter range, or by=day`);
  }
  const unkept = hasOldDays ? propertiesNamed(qn.by, qn.where).find((p) => !kept.includes(p.key)) : undefined;
  if (unkept) {
    return refuse(
      unkept.field,
      `${PROPERTY_PREFIX}${unkept.key} is only possible within the last 90 days: the site does not keep the key "${unkept.key}". Add it to keptProperties in the site settings (PATCH /v1/sites/{id}/settings) to keep its values in the daily rollups from then on, or choose days from ${rawStart} on`,
    );
  }
  const fit = rollupFit(qn.metrics, qn.by, qn.where, true);
  if (!fit.ok && hasOldDays) return fit;
  const counts = qn.counts ?? countNames(qn.metrics, qn.sort);
  // Totals read the day-total rows, or the filtered dimension's (or pair's): visitors do not add up
  // across values.
  const rollups = fit.ok ? { groups: fit.dimension, totals: totalsDimension(qn) } : null;
  // Rollups keep no hours, and know nothing of a caller's raw-only condition.
  const recentFromRollups = rollups !== null && qn.by !== 'hour' && !qn.rawExtra?.length;
  const setCounts = CATALOGUE[qn.metrics].counts;
  const totalsFromGroups =
    qn.by !== null && !TIME_DIMENSIONS.has(qn.by) && counts.every((c) => setCounts[c]?.startsWith('count(*)'));
  return { ok: true, counts, rollups, recentFromRollups, totalsFromGroups };
}

/**
 * The days of `range` split at the raw window, with the recent days rolled up (an unbroken run from the
 * window's start, maybe ending with the current day's rollup up to an instant) moved to the rollups; a
 * partly rolled-up day is read from both: its rollup rows, and its raw rows from that instant on.
 */
export function splitDays(range: DayRange, rawStart: string, rolled: RolledUp): DaySplit {
  const base = splitRange(range, rawStart);
  if (!base.raw) return base;
  const { complete, partial } = rolled;
  const usable = partial && partial.day <= base.raw.to ? partial : null;
  const lastRolled = usable?.day ?? complete;
  if (!lastRolled) return base;
  const rollup = { from: base.rollup?.from ?? base.raw.from, to: lastRolled };
  if (usable) return { rollup, raw: { from: usable.day, to: base.raw.to, after: usable.until } };
  return { rollup, raw: lastRolled >= base.raw.to ? null : { from: addDays(lastRolled, 1), to: base.raw.to } };
}
