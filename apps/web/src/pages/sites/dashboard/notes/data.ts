import { useQuery } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { useTRPC } from '../../../../trpc.ts';

export type Annotation = RouterOutputs['annotations']['list']['annotations'][number];
export type Segment = RouterOutputs['segments']['list']['segments'][number];

/** The annotations of a period, for the chart and its list (`annotations.list`, at most a page of 500). */
export function useAnnotations(siteId: string, period: { from: string; to: string } | null) {
  return useQuery(
    useTRPC().annotations.list.queryOptions(
      { id: siteId, from: period?.from ?? '', to: period?.to ?? '', limit: 500 },
      { enabled: period !== null },
    ),
  );
}

/** The site's saved segments (`segments.list`). */
export function useSegments(siteId: string) {
  return useQuery(useTRPC().segments.list.queryOptions({ id: siteId }));
}
