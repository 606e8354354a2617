import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../../../trpc.ts';

/**
 * Everything a site's public key shows up in, loaded again: the key list, the snippet and the install status
 * (which says whether the snippet needs a new public key).
 */
export function usePublicKeyRefresh(siteId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.siteKeys.list.queryFilter({ id: siteId })),
      queryClient.invalidateQueries(trpc.sites.snippet.queryFilter({ id: siteId })),
      queryClient.invalidateQueries(trpc.sites.installStatus.queryFilter({ id: siteId })),
    ]);
}

/** A new public key for a site whose public key was deleted; the snippet then carries it. */
export function useCreatePublicKey(siteId: string) {
  const refresh = usePublicKeyRefresh(siteId);
  return useMutation(useTRPC().siteKeys.create.mutationOptions({ onSuccess: () => refresh() }));
}
