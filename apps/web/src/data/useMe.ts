import { useQuery } from '@tanstack/react-query';
import { type TRPC, useTRPC } from '../trpc.ts';
import { KEEP_401 } from './queryClient.ts';

/**
 * Who is signed in, and in which workspace with which scopes. Every page asks (the header shows the
 * person), guest pages too, so a 401 here is an answer (nobody) that this query keeps for its page.
 */
export const meOptions = (trpc: TRPC) => trpc.me.get.queryOptions(undefined, KEEP_401);

export function useMe() {
  return useQuery(meOptions(useTRPC()));
}
