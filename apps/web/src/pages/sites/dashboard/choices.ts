import { addDays, HOURS_KEPT_DAYS, INTERVALS, type Interval, intervalOf, lengthOf, periodOf, todayIn } from './period.ts';
import type { Lane } from './types.ts';

/** The three lanes, as the URL names them and as people read them. */
export const LANE_CHOICES = [
  { key: 'people', lane: 'human', label: 'People' },
  { key: 'crawlers', lane: 'bot', label: 'Crawlers' },
  { key: 'internal', lane: 'internal', label: 'Internal' },
] as const satisfies readonly { key: string; lane: Lane; label: string }[];
export type LaneKey = (typeof LANE_CHOICES)[number]['key'];

/** Preset ranges as `days` (1 = today so far; yesterday is the day before), and `custom` for from/to. */
export const RANGE_CHOICES = [
  { key: 'today', days: 1, label: 'Today' },
  { key: 'yesterday', days: 1, label: 'Yesterday' },
  { key: '7d', days: 7, label: '7 days' },
  { key: '30d', days: 30, label: '30 days' },
  { key: '90d', days: 90, label: '90 days' },
  { key: '12m', days: 365, label: '12 months' },
] as const;
export type RangeKey = (typeof RANGE_CHOICES)[number]['key'] | 'custom';

/** What the page shows; kept in the query string so a reload or a shared link shows the same. */
export interface Choices {
  lane: LaneKey;
  range: RangeKey;
  /** Only with range `custom`: YYYY-MM-DD, inclusive. */
  from: string | null;
  to: string | null;
  compare: boolean;
  /** With compare: a custom earlier range to compare with (the API's compareFrom/compareTo); null: the days just before. */
  compareFrom: string | null;
  compareTo: string | null;
  /** The chart's interval as chosen (`interval=`); null, or one that does not fit the range: the range's default. */
  interval: Interval | null;
  /** The site's today (not in the address): where yesterday and stepping count from; default the browser's. */
  today?: string;
  /**
   * Filters from clicked rows, dimension → value (`(none)`: no value), in the order they were added;
   * in the address as `where.<dimension>=<value>`, the stats API's own parameters.
   */
  filters: Filters;
}

export type Filters = Readonly<Record<string, string>>;

export const DEFAULT_CHOICES: Choices = {
  lane: 'people',
  range: '7d',
  from: null,
  to: null,
  compare: true,
  compareFrom: null,
  compareTo: null,
  interval: null,
  filters: {},
};

/** The value a filter gives a row without a value: the API matches it to an empty value. */
export const NO_VALUE = '(none)';
/** A dimension's filter, or a custom property's (`where.prop:<key>`, the key as sent). */
const FILTER_PARAM = /^where\.([a-z_]{1,40}|prop:[A-Za-z0-9_.\- ]{1,64})$/;
const MAX_FILTERS = 6;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (s: string | null): s is string => s !== null && DAY.test(s);

/** The choices in a query string; anything unknown falls back to the default. */
export function parseChoices(search: string): Choices {
  const q = new URLSearchParams(search);
  const lane = LANE_CHOICES.find((l) => l.key === q.get('lane'))?.key ?? DEFAULT_CHOICES.lane;
  const rangeParam = q.get('range');
  const from = q.get('from');
  const to = q.get('to');
  let range: RangeKey = RANGE_CHOICES.find((r) => r.key === rangeParam)?.key ?? DEFAULT_CHOICES.range;
  if (rangeParam === 'custom' && isDay(from)) range = 'custom';
  const custom = range === 'custom';
  const compare = q.get('compare') !== '0';
  const compareFrom = q.get('compareFrom');
  const compareTo = q.get('compareTo');
  const withRange = compare && isDay(compareFrom);
  return {
    lane,
    range,
    from: custom ? from : null,
    to: custom && isDay(to) ? to : null,
    compare,
    compareFrom: withRange ? compareFrom : null,
    compareTo: withRange && isDay(compareTo) ? compareTo : null,
    interval: INTERVALS.find((i) => i.key === q.get('interval'))?.key ?? null,
    filters: filtersOf(q),
  };
}

/** The `where.<dimension>` parameters of a query string (the first value of each; at most six). */
function filtersOf(q: URLSearchParams): Filters {
  const filters: Record<string, string> = {};
  for (const [key, value] of q) {
    const name = FILTER_PARAM.exec(key)?.[1];
    if (!name || name in filters || !value || value.length > 2048) continue;
    if (Object.keys(filters).length === MAX_FILTERS) break;
    filters[name] = value;
  }
  return filters;
}

/** The query string of some choices, leaving out the defaults (and keeping unrelated parameters). */
export function choicesToParams(c: Choices, base = new URLSearchParams()): URLSearchParams {
  const q = new URLSearchParams(base);
  for (const k of ['lane', 'range', 'from', 'to', 'compare', 'compareFrom', 'compareTo', 'interval']) q.delete(k);
  for (const k of [...q.keys()]) if (FILTER_PARAM.test(k)) q.delete(k);
  if (c.lane !== DEFAULT_CHOICES.lane) q.set('lane', c.lane);
  if (c.range !== DEFAULT_CHOICES.range) q.set('range', c.range);
  if (c.range === 'custom' && c.from) q.set('from', c.from);
  if (c.range === 'custom' && c.to) q.set('to', c.to);
  if (!c.compare) q.set('compare', '0');
  if (c.compare && c.compareFrom) q.set('compareFrom', c.compareFrom);
  if (c.compare && c.compareFrom && c.compareTo) q.set('compareTo', c.compareTo);
  if (c.interval) q.set('interval', c.interval);
  for (const [name, value] of Object.entries(c.filters)) q.set(`where.${name}`, value);
  return q;
}

/** The lane the API knows for a lane choice. */
export const laneOf = (key: LaneKey): Lane => LANE_CHOICES.find((l) => l.key === key)?.lane ?? 'human';
export const laneLabel = (key: LaneKey): string => LANE_CHOICES.find((l) => l.key === key)?.label ?? key;

/** The range fields of a stats request: `days`, or `from`/`to`. */
export type RangeFields = { days: number } | { from: string; to?: string };

const presetDays = (c: Choices) => RANGE_CHOICES.find((r) => r.key === c.range)?.days ?? 7;

export function rangeFields(c: Choices): RangeFields {
  if (c.range === 'custom' && c.from) return c.to ? { from: c.from, to: c.to } : { from: c.from };
  if (c.range === 'yesterday') {
    const day = addDays(c.today ?? todayIn(), -1);
    return { from: day, to: day };
  }
  return { days: presetDays(c) };
}

/** The days the choices show. */
export const periodOfChoices = (c: Choices) => periodOf(c, presetDays(c), c.today ?? todayIn());
/** How many days the choices show. */
export const daysOfChoices = (c: Choices) => lengthOf(periodOfChoices(c));
/** Whether the choices reach back before the days the API keeps hours for. */
export const olderThanHours = (c: Choices) => periodOfChoices(c).from < addDays(c.today ?? todayIn(), -HOURS_KEPT_DAYS);
/** The chart's interval for the choices. */
export const intervalOfChoices = (c: Choices) => intervalOf(c.interval, daysOfChoices(c), olderThanHours(c));

/** The custom comparison range of a request, when comparing with one. */
export function compareFields(c: Choices): { compareFrom?: string; compareTo?: string } {
  if (!c.compare || !c.compareFrom) return {};
  return c.compareTo ? { compareFrom: c.compareFrom, compareTo: c.compareTo } : { compareFrom: c.compareFrom };
}

/**
 * The period, its comparison and the filters, as the routes comparing two periods take them (the headline
 * measures and "What changed?", which must compare the same two periods).
 */
export function comparedPeriodFields(c: Choices) {
  return { ...rangeFields(c), ...compareFields(c), ...whereParams(c.filters) };
}

/** A stats request's filters as the query-string routes take them (`where.<name>`). */
export function whereParams(filters: Filters): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).map(([name, value]) => [`where.${name}`, value]));
}
