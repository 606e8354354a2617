// What the engine is asked and what it answers, shared by the planner, the statement builders and the
// entry points.
import type { Lane, MetricSet, StatsRow } from '@us/shared';
import { CATALOGUE } from '../../analytics/catalogue.ts';
import type { DayRange } from '../../analytics/range.ts';

/** Where the figures were read: raw rows, daily rollups, or both (older days from rollups). */
export type Source = 'raw' | 'rollups' | 'mixed';

/** One question to the engine (a spec without its presentation). */
export interface Question {
  metrics: MetricSet;
  by: string | null;
  lane: Lane;
  range: DayRange;
  where: Record<string, string>;
  sort: string;
  /** Rows returned for a non-time `by` (series by day/hour are never cut). */
  limit: number;
  /** Ranked rows skipped first (paging); default 0. */
  offset?: number;
  /** Only values containing this text, any case (ranked tables); totals stay those of every value. */
  search?: string | null;
  /** Extra raw-row conditions fixed by the caller (catalogue SQL only, e.g. events of kind 'event'). */
  rawExtra?: string[];
  /** Only these counts (the sort first); default every count of the set. */
  counts?: string[];
  /**
   * Only rows of these values of `by` ('' for no value), e.g. the pages of another table's rows; the
   * totals are not narrowed (unless they ride along the rows: read only the rows then).
   */
  values?: readonly string[];
  /**
   * Imported history left out even where its rows could answer: a caller that compares this answer with others that
   * cannot hold it (the drivers of "what changed?", by dimensions the imported figures do not pair).
   */
  withoutImported?: boolean;
}

/** The answer of one period. */
export interface Figures {
  totals: Record<string, number>;
  rows: StatsRow[];
  truncated: boolean;
  source: Source;
  /** Whether imported history was read (rolled-up days, in a shape the imported figures keep). */
  importedRead: boolean;
}

/** Counts of a set, the sort first. */
export function countNames(set: MetricSet, sort: string): string[] {
  return [sort, ...Object.keys(CATALOGUE[set].counts).filter((c) => c !== sort)];
}

/** The source named by which day ranges were read. */
export function sourceOf(days: { raw: unknown; rollup: unknown }): Source {
  if (days.raw && days.rollup) return 'mixed';
  return days.rollup ? 'rollups' : 'raw';
}
