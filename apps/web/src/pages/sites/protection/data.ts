import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../../../trpc.ts';

/** The site's saved bot settings (`bot.get`, GET /v1/sites/{id}/bot). */
export function useSavedSettings(siteId: string) {
  return useQuery(useTRPC().bot.get.queryOptions({ id: siteId }));
}

/**
 * Saves settings (`bot.update`, PUT /v1/sites/{id}/bot: mode, bots and rules replaced together); the
 * settings, the site and the report load again.
 */
export function useSaveSettings(siteId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.bot.update.mutationOptions({
      onSuccess: (settings) => {
        queryClient.setQueryData(trpc.bot.get.queryKey({ id: siteId }), settings);
        return Promise.all([
          queryClient.invalidateQueries(trpc.sites.get.queryFilter({ id: siteId })),
          queryClient.invalidateQueries(trpc.bot.decisions.queryFilter()),
        ]);
      },
    }),
  );
}

/** What the gate did over the last `days` (`bot.decisions`). */
export function useDecisions(siteId: string, days: number) {
  return useQuery(useTRPC().bot.decisions.queryOptions({ id: siteId, days }, { placeholderData: (prev) => prev }));
}

export function useAiTraffic(siteId: string, days: number) {
  return useQuery(useTRPC().botTools.aiTraffic.queryOptions({ id: siteId, days }, { placeholderData: (prev) => prev }));
}

export function useDryRun() {
  return useMutation(useTRPC().botTools.dryRun.mutationOptions());
}

export function useTryRequest() {
  return useMutation(useTRPC().botTools.tryRequest.mutationOptions());
}
