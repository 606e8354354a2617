import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { useTRPC } from '../../../trpc.ts';

export type ExperimentResults = RouterOutputs['results']['experiment'];
export type VariantResult = ExperimentResults['variants'][number];
export type Comparison = NonNullable<ExperimentResults['comparison']>;

/** The periods the experiment page offers (`?days=`; results read the raw records, at most 90 days). */
export const EXPERIMENT_DAYS = [7, 30, 90] as const;

/** The experiment key of `/sites/<id>/experiments/<key>`. */
export function experimentKeyOf(path: string): string {
  const segment = path.split('/')[4] ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Per variant figures, the comparison and the verdict (`results.experiment`, GET /v1/sites/{id}/experiments/{key}/results). */
export function useExperimentResults(siteId: string, key: string, days: number, goal: string | null) {
  const input = { id: siteId, key, days, ...(goal ? { goal } : {}) };
  return useQuery(useTRPC().results.experiment.queryOptions(input, { placeholderData: keepPreviousData }));
}
