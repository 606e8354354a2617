import { useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../../../trpc.ts';

/** After a change to a site: its page and dashboard, and the site list, load it again. */
export function useRefreshSite(siteId: string): () => Promise<unknown> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.sites.get.queryFilter({ id: siteId })),
      queryClient.invalidateQueries(trpc.sites.list.queryFilter()),
    ]);
}
