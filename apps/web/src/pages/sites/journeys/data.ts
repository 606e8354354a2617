import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { useTRPC } from '../../../trpc.ts';
import type { JourneyChoices } from './choices.ts';

export type Journeys = RouterOutputs['journeys']['get'];
export type JourneyNode = Journeys['flow']['nodes'][number];
export type JourneyLink = Journeys['flow']['links'][number];
export type JourneyPath = Journeys['paths'][number];
export type JourneyExperiment = Journeys['experiments'][number];

/** Visits, goal rates, the flow, paths and experiments for the page's choices (`journeys.get`, GET /v1/sites/{id}/journeys). */
export function useJourneys(siteId: string, c: JourneyChoices) {
  const input = { id: siteId, days: c.days, zoom: c.zoom, who: c.who, ...(c.anchor ? { anchor: c.anchor } : {}) };
  return useQuery(useTRPC().journeys.get.queryOptions(input, { placeholderData: keepPreviousData }));
}
