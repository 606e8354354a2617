import type { StagedRecord } from './format.ts';

/** A dimension and its value; the day total is added by `stagedOf`. */
export type DimensionValue = readonly [dimension: string, value: string];

/**
 * One raw record's part of a day's figures in one metric set: the day total (dimension '' and value '')
 * and one record per dimension. Only single dimensions: imported figures answer one dimension at a time
 * (no `a|b` pairs, so a table filtered by another dimension has no imported rows).
 */
export function stagedOf(
  day: string,
  metricSet: string,
  values: readonly DimensionValue[],
  visitKey: string,
  count = 1,
): StagedRecord[] {
  const out: StagedRecord[] = [{ day, metricSet, dimension: '', value: '', visitKey, count }];
  for (const [dimension, value] of values) out.push({ day, metricSet, dimension, value, visitKey, count });
  return out;
}
