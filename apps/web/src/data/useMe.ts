import { useQuery } from '@tanstack/react-query';
import { type TRPC, useTRPC } from '../trpc.ts';
import { KEEP_401 } from './queryClient.ts';

/**
 * Who is signed in, and in which workspace with which scopes. Every page asks (the header shows the
 * person), guest pages too, so a 401 here is an answer (nobody) that this query keeps for its page.
 * That answer stands until a sign-in (which clears the cache): a page that shows a guest header for
 * it does not ask again as it mounts, which would blank the answer it was built on.
 */
export const meOptions = (trpc: TRPC) => trpc.me.get.queryOptions(undefined, { ...KEEP_401, retryOnMount: false });

export function useMe() {
  return useQuery(meOptions(useTRPC()));
}
