import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Notice } from '../../../components/Notice.tsx';
import { latestProblem } from '../../../data/latestProblem.ts';
import { meOptions } from '../../../data/useMe.ts';
import { isSignedOut, toProblem } from '../../../problem.ts';
import { navigate } from '../../../router.tsx';
import { useSignOut } from '../../../session.ts';
import { useTRPC } from '../../../trpc.ts';
import { chooseWorkspace } from '../../../workspace.ts';
import { forgetPendingInvite, rememberPendingInvite } from '../pendingInvite.ts';

/** Signed in: join with one click, then work in the new workspace. A 404 means wrong account or stale link. */
export function JoinWorkspace({ token, email, path }: { token: string; email: string; path: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const signOut = useSignOut();
  const join = useMutation(
    trpc.members.acceptInvite.mutationOptions({
      onSuccess: async ({ workspaceId, role }) => {
        chooseWorkspace(workspaceId);
        // The new workspace's name, for the welcome message.
        const me = await queryClient.fetchQuery(meOptions(trpc)).catch(() => null);
        const name = me?.memberships?.find((m) => m.workspaceId === workspaceId)?.name ?? 'the workspace';
        navigate('/members', { flash: `Welcome to ${name}: you joined as ${role}.` });
      },
      // The session ended meanwhile: after signing in again, back here.
      onError: (err) => {
        if (isSignedOut(toProblem(err))) rememberPendingInvite(path);
      },
    }),
  );
  const problem = latestProblem(join, signOut);
  const notForYou = problem?.status === 404;

  // Here and signed in: nothing left to come back to after a sign-in.
  useEffect(() => forgetPendingInvite(), []);

  const switchAccount = () => {
    rememberPendingInvite(path);
    signOut.mutate();
  };

  return (
    <div className="card invite-card">
      {notForYou && (
        <Notice tone="error">
          This invitation is not for this account, or it has expired. Sign in with the address it was sent to, or ask for a new
          invitation.
        </Notice>
      )}
      {problem && !notForYou && <Notice tone="error">{problem.title}</Notice>}
      <p>
        You are signed in as <strong>{email}</strong>. Join to see the workspace’s sites and reports with the role you were
        invited with.
      </p>
      <div className="form-actions">
        <button type="button" className="button button-primary" onClick={() => join.mutate({ token })} disabled={join.isPending}>
          {join.isPending ? 'Joining…' : 'Join workspace'}
        </button>
        <button type="button" className="button button-link" onClick={switchAccount}>
          Sign in with another account
        </button>
      </div>
    </div>
  );
}
