import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../../trpc.ts';

/**
 * How often an open, visible tab asks again. The server shares an answer for 3 seconds between every tab
 * and caller on a node, and a hidden tab does not ask at all (React Query pauses the interval).
 */
export const LIVE_EVERY_MS = 5_000;

const live = { refetchInterval: LIVE_EVERY_MS, refetchIntervalInBackground: false, retry: false } as const;

/** People on a site in the last 5 minutes and its last pageviews, kept current while the page is open. */
export function useSiteNow(siteId: string) {
  return useQuery({ ...useTRPC().live.site.queryOptions({ id: siteId }), ...live });
}

/** People in the last 5 minutes on each site of the list. */
export function useSitesNow() {
  return useQuery({ ...useTRPC().live.sites.queryOptions(), ...live });
}

/** People per day of the last week of each site of the list (the server shares it for a minute). */
export function useSparklines() {
  return useQuery({ ...useTRPC().live.sparklines.queryOptions(), staleTime: 60_000, retry: false });
}
