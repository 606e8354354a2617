import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { useTRPC } from '../../../trpc.ts';

export type GoalResults = RouterOutputs['results']['goals'];
export type GoalResult = GoalResults['goals'][number];

/** The periods the Goals page offers (`?days=`). */
export const GOAL_DAYS = [7, 30, 90] as const;

/** Completions, sessions and rate per goal over the last `days` (`results.goals`, GET /v1/sites/{id}/goals/results). */
export function useGoalResults(siteId: string, days: number) {
  return useQuery(useTRPC().results.goals.queryOptions({ id: siteId, days }, { placeholderData: keepPreviousData }));
}
