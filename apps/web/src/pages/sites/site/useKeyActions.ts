import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../../../trpc.ts';
import type { SiteKey } from '../types.ts';
import { usePublicKeyRefresh } from './useCreatePublicKey.ts';

/**
 * What can be done to a site's keys, each reloading the key list when done. `fresh` is a secret just
 * made or rotated, kept here only until dismissed (it is never shown again); a rotated or deleted public
 * key changes the snippet and the install status, which load again.
 */
export function useKeyActions(siteId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [fresh, setFresh] = useState<SiteKey | null>(null);
  const refreshKeys = () => queryClient.invalidateQueries(trpc.siteKeys.list.queryFilter({ id: siteId }));
  const refreshPublic = usePublicKeyRefresh(siteId);

  const create = useMutation(
    trpc.siteKeys.create.mutationOptions({
      onSuccess: ({ key }) => {
        setFresh(key);
        return refreshKeys();
      },
    }),
  );
  const rotate = useMutation(
    trpc.siteKeys.rotate.mutationOptions({
      onSuccess: ({ key }) => {
        if (key.kind === 'secret') {
          setFresh(key);
          return refreshKeys();
        }
        return refreshPublic();
      },
    }),
  );
  const remove = useMutation(
    trpc.siteKeys.delete.mutationOptions({
      onSuccess: (_answer, { keyId }) => {
        if (fresh?.id === keyId) setFresh(null);
        return refreshPublic();
      },
    }),
  );
  return { create, rotate, remove, fresh, dismissFresh: () => setFresh(null) };
}
