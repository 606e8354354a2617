// Checking a stats spec against the catalogue: every refusal is a 400 naming the field in spec notation
// (`by`, `sort`, `where.<name>`, `lane`, `days`, `from`, `to`) with a title saying what to do.
import { type Lane, METRIC_SETS, type MetricSet, PROPERTY_PREFIX, STATS_LIMITS, type StatsSpec } from '@us/shared';
import {
  CATALOGUE,
  PROPERTY_PATTERN,
  PROPERTY_SETS,
  primaryCount,
  propertyDimension,
  rollupDimensions,
  TIME_DIMENSIONS,
} from '../../analytics/catalogue.ts';
import { type DayRange, resolveRange } from '../../analytics/range.ts';
import { NONE } from '../../analytics/sql.ts';
import { badRequest } from '../../core/errors.ts';
import { customCompareRange } from './compare-range.ts';

/** A checked spec, ready to run. */
export interface NormalSpec {
  metrics: MetricSet;
  by: string | null;
  lane: Lane;
  range: DayRange;
  compare: boolean;
  /** With compare: a custom earlier range to compare with (compareFrom/compareTo); null: the days just before. */
  compareRange?: DayRange | null;
  where: Record<string, string>;
  sort: string;
  limit: number;
  /** Ranked rows skipped before the first returned. */
  offset: number;
  /** Only values containing this text (any case); null: every value. */
  search: string | null;
}

const QUERY_FIELDS = new Set([
  'id',
  'metrics',
  'by',
  'lane',
  'days',
  'from',
  'to',
  'compare',
  'compareFrom',
  'compareTo',
  'sort',
  'limit',
  'offset',
  'search',
  'where',
]);
const WHERE_PREFIX = 'where.';

/**
 * Query-string input: known fields stay, `where.<name>` parameters become `where`, any other parameter
 * is refused with its own name as `field`.
 */
export function whereFromParams(input: Record<string, unknown>, known: ReadonlySet<string>): Record<string, string> {
  const where: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    if (known.has(key)) continue;
    if (key.startsWith(WHERE_PREFIX) && key.length > WHERE_PREFIX.length) {
      where[key.slice(WHERE_PREFIX.length)] = String(value);
      continue;
    }
    // `?=1` has a parameter with an empty name: the problem still names something to look for.
    const field = key || '(empty name)';
    throw badRequest(field, `Remove the parameter ${field}: it is not part of this request (filters are where.<name>=<value>)`);
  }
  return where;
}

/** The spec fields of either input (JSON body with `where`, or query string with `where.<name>`). */
export function specOf(input: Record<string, unknown>): StatsSpec {
  if (input.where !== undefined && (typeof input.where !== 'object' || input.where === null)) {
    throw badRequest('where', 'Give filters as where.<name>=<value> parameters, or as a where object in JSON');
  }
  const params = whereFromParams(input, QUERY_FIELDS);
  const body = (input.where ?? {}) as Record<string, string>;
  const spec = { ...input, where: { ...body, ...params } } as StatsSpec & { id?: string };
  for (const k of Object.keys(spec)) if (k.startsWith(WHERE_PREFIX) || k === 'id') delete (spec as Record<string, unknown>)[k];
  return spec;
}

export function checkMetricSet(name: string, field = 'metrics'): MetricSet {
  if (!(METRIC_SETS as readonly string[]).includes(name)) {
    throw badRequest(field, `Use a metric set of the catalogue: ${METRIC_SETS.join(', ')}`);
  }
  return name as MetricSet;
}

/**
 * A `prop:<key>` name: true when it names a property the set carries; a 400 naming `field` when its key
 * cannot be one (or the set has no properties); false for any other name.
 */
function isPropertyName(set: MetricSet, name: string, field: string): boolean {
  if (!name.startsWith(PROPERTY_PREFIX)) return false;
  if (!PROPERTY_SETS.has(set)) {
    throw badRequest(field, `Properties belong to pageviews, sessions and events, not to ${set}`);
  }
  if (!propertyDimension(name)) {
    throw badRequest(field, `Name a property as ${PROPERTY_PATTERN}: a key of 1-64 letters, digits, _, -, . or spaces`);
  }
  return true;
}

/** `where` keys must be filters of the set: a dimension of the catalogue or a property (`prop:<key>`). */
export function checkWhere(set: MetricSet, where: Record<string, string> | undefined): Record<string, string> {
  const filters = rollupDimensions(set);
  const keys = Object.keys(where ?? {});
  // Counted first: each filter costs work per question (and the planner's checks grow with their number).
  if (keys.length > STATS_LIMITS.maxFilters) {
    throw badRequest('where', `Give at most ${STATS_LIMITS.maxFilters} filters (${keys.length} were given)`);
  }
  for (const key of keys) {
    if (!filters.includes(key) && !isPropertyName(set, key, `where.${key}`)) {
      const props = PROPERTY_SETS.has(set) ? `, ${PROPERTY_PATTERN}` : '';
      throw badRequest(`where.${key}`, `Filter ${set} by one of: ${filters.join(', ')}${props} (see GET /v1/stats/catalogue)`);
    }
  }
  // An empty value is "no value", as `(none)`: raw rows compared `= ''` (nothing) where rollups matched every row without one.
  return Object.fromEntries(Object.entries(where ?? {}).map(([key, value]) => [key, value === '' ? NONE : value]));
}

/** Checks a parsed spec against the catalogue and resolves its days. */
export function normalise(spec: StatsSpec, today: string): NormalSpec {
  const metrics = checkMetricSet(spec.metrics);
  const def = CATALOGUE[metrics];
  const dims = Object.keys(def.dimensions);
  if (spec.by !== undefined && !dims.includes(spec.by) && !isPropertyName(metrics, spec.by, 'by')) {
    const props = PROPERTY_SETS.has(metrics) ? `, ${PROPERTY_PATTERN}` : '';
    throw badRequest('by', `Group ${metrics} by one of: ${dims.join(', ')}${props} (see GET /v1/stats/catalogue)`);
  }
  const counts = Object.keys(def.counts);
  if (spec.sort !== undefined && !counts.includes(spec.sort)) {
    throw badRequest('sort', `Sort ${metrics} by one of its counts: ${counts.join(', ')}`);
  }
  const where = checkWhere(metrics, spec.where);
  const range = resolveRange(spec, today);
  const compareRange = customCompareRange(spec, range);
  // A comparison range asks for the comparison by itself.
  const compare = (spec.compare ?? false) || compareRange !== null;
  const ranked = spec.by !== undefined && !TIME_DIMENSIONS.has(spec.by);
  const offset = spec.offset ?? 0;
  const search = spec.search?.trim() || null;
  if (!ranked && (offset > 0 || search !== null)) {
    const field = offset > 0 ? 'offset' : 'search';
    throw badRequest(
      field,
      `Leave out ${field}: it pages or searches the values of a ranked table (by a dimension other than a time: day, hour, week, month)`,
    );
  }
  if (compare && offset > 0) {
    throw badRequest('compare', 'Leave out compare when paging with offset: ask for the previous period as a range of its own');
  }
  return {
    metrics,
    by: spec.by ?? null,
    lane: spec.lane ?? def.defaultLane,
    range,
    compare,
    compareRange,
    where,
    sort: spec.sort ?? primaryCount(metrics),
    limit: spec.limit ?? STATS_LIMITS.defaultRows,
    offset,
    search,
  };
}
