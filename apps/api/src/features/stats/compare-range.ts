// The period a figure is compared with: by default the days just before (range.ts previousRange), or a
// custom earlier range `compareFrom`/`compareTo` (compareFrom alone: as many days as the period).
import { STATS_LIMITS } from '@us/shared';
import { addDays, type DayRange, dayAdvice, diffDays, isDay, previousRange } from '../../analytics/range.ts';
import { badRequest } from '../../core/errors.ts';

export interface CompareInput {
  compareFrom?: string | undefined;
  compareTo?: string | undefined;
}

/** The custom comparison range asked for, checked against the period; null when none is asked. */
export function customCompareRange(input: CompareInput, range: DayRange): DayRange | null {
  const { compareFrom, compareTo } = input;
  if (compareFrom === undefined) {
    if (compareTo !== undefined) throw badRequest('compareFrom', 'Give compareFrom together with compareTo (YYYY-MM-DD)');
    return null;
  }
  if (!isDay(compareFrom)) throw badRequest('compareFrom', dayAdvice('compareFrom'));
  if (compareTo !== undefined && !isDay(compareTo)) {
    throw badRequest('compareTo', dayAdvice('compareTo'));
  }
  const to = compareTo ?? addDays(compareFrom, diffDays(range.from, range.to));
  const field = compareTo === undefined ? 'compareFrom' : 'compareTo';
  if (compareFrom > to) throw badRequest('compareTo', `Give a compareTo on or after ${compareFrom}`);
  if (to >= range.from) throw badRequest(field, `Compare with days before the period: end the comparison before ${range.from}`);
  if (diffDays(compareFrom, to) + 1 > STATS_LIMITS.maxDays) {
    throw badRequest('compareFrom', `Compare with at most ${STATS_LIMITS.maxDays} days`);
  }
  return { from: compareFrom, to };
}

/** The comparison period: the custom one when given, else the days just before. */
export function comparedRange(range: DayRange, custom: DayRange | null): DayRange {
  return custom ?? previousRange(range);
}

/**
 * The day before which the site must have data for a comparison to mean something: the period's first
 * day by default (as before), the day after a custom range's end.
 */
export function comparableBefore(range: DayRange, custom: DayRange | null): string {
  return custom ? addDays(custom.to, 1) : range.from;
}
