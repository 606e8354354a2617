import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { useTRPC } from '../../../trpc.ts';

export type Search = RouterOutputs['search']['get'];
export type SearchWeeks = RouterOutputs['search']['weeks'];

/** What is connected (`search.get`, GET /v1/sites/{id}/search). */
export function useSearch(siteId: string) {
  return useQuery(useTRPC().search.get.queryOptions({ id: siteId }));
}

/** The weekly rows of the last 12 weeks (`search.weeks`). */
export function useSearchWeeks(siteId: string) {
  return useQuery(useTRPC().search.weeks.queryOptions({ id: siteId, weeks: 12 }));
}

/** After a connection changes: what is connected, read again. */
export function useRefreshSearch(siteId: string) {
  const trpc = useTRPC();
  const client = useQueryClient();
  return () => client.invalidateQueries(trpc.search.get.queryFilter({ id: siteId }));
}
