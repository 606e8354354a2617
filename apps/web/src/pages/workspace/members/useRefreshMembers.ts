import { useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../../../trpc.ts';

/** After a change to members or invitations: the lists and the plan usage (pending invitations count) load again. */
export function useRefreshMembers(): () => Promise<unknown> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.members.list.queryFilter()),
      queryClient.invalidateQueries(trpc.workspace.get.queryFilter()),
    ]);
}
