import { useQuery } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { useTRPC, useTRPCClient } from '../../../../trpc.ts';

export type Annotation = RouterOutputs['annotations']['list']['annotations'][number];
export type Segment = RouterOutputs['segments']['list']['segments'][number];

/**
 * The annotations of a period, for the chart and its list (`annotations.list`): every page of 500, following
 * `next` (a site keeps up to 1,000; the first page alone lost the oldest from the chart and the list). Kept under
 * the first page's key, so adding or deleting one refreshes it as before.
 */
export function useAnnotations(siteId: string, period: { from: string; to: string } | null) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const input = { id: siteId, from: period?.from ?? '', to: period?.to ?? '', limit: 500 };
  return useQuery({
    queryKey: trpc.annotations.list.queryKey(input),
    queryFn: () => allAnnotations((cursor) => client.annotations.list.query({ ...input, ...(cursor ? { cursor } : {}) })),
    enabled: period !== null,
  });
}

/** Every page of a listing that ends with `next: null`, in the order it answers them (at most 20 pages). */
export async function allAnnotations(
  page: (cursor: string | null) => Promise<{ annotations: Annotation[]; next: string | null }>,
): Promise<{ annotations: Annotation[]; next: null }> {
  const annotations: Annotation[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 20; pages++) {
    const answer = await page(cursor);
    annotations.push(...answer.annotations);
    cursor = answer.next;
    if (!cursor) break;
  }
  return { annotations, next: null };
}

/** The site's saved segments (`segments.list`). */
export function useSegments(siteId: string) {
  return useQuery(useTRPC().segments.list.queryOptions({ id: siteId }));
}
