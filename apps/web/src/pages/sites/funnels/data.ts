import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { useTRPC } from '../../../trpc.ts';
import { type Filters, whereParams } from '../dashboard/choices.ts';

export type Funnel = RouterOutputs['funnels']['list']['funnels'][number];
export type FunnelResults = RouterOutputs['funnels']['results'];
export type FunnelStepResult = FunnelResults['steps'][number];

/** The periods the Funnels page offers (`?days=`; funnels read the raw records, at most 90 days). */
export const FUNNEL_DAYS = [7, 30, 90] as const;

/** The site's saved funnels (`funnels.list`, GET /v1/sites/{id}/funnels). */
export function useFunnels(siteId: string) {
  return useQuery(useTRPC().funnels.list.queryOptions({ id: siteId }));
}

/**
 * Per step visitors, conversion, drop-off and median time, with the dashboard's filters (`where.<dimension>`,
 * applied to where each session began) (`funnels.results`, GET /v1/sites/{id}/funnels/{funnel}/results).
 */
export function useFunnelResults(siteId: string, funnel: string | null, days: number, filters: Filters) {
  return useQuery(
    useTRPC().funnels.results.queryOptions(
      { id: siteId, funnel: funnel ?? '', days, ...whereParams(filters) },
      { enabled: funnel !== null, placeholderData: keepPreviousData },
    ),
  );
}

/** How a step reads in lists and the chart: "Page /pricing", "Event signup". */
export const stepLabel = (s: { type: 'page' | 'event'; match: string }) => `${s.type === 'page' ? 'Page' : 'Event'} ${s.match}`;
