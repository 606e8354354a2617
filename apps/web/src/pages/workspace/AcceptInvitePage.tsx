import { useEffect } from 'react';
import { GuestPage } from '../../components/GuestPage.tsx';
import { Notice } from '../../components/Notice.tsx';
import { useMe } from '../../data/useMe.ts';
import { isSignedOut, toProblem } from '../../problem.ts';
import { Link, useQueryParam } from '../../router.tsx';
import { JoinWorkspace } from './invite/JoinWorkspace.tsx';
import { rememberPendingInvite } from './pendingInvite.ts';
import { WorkspaceFrame } from './WorkspaceFrame.tsx';

const invitePath = (token: string) => `/accept-invite?token=${encodeURIComponent(token)}`;

/**
 * `/accept-invite?token=…`, the invitation e-mail's link. Signed in: a button to join. Signed out:
 * the link is remembered in this tab, and after signing in the dashboard comes back here.
 */
export function AcceptInvitePage() {
  const token = useQueryParam('token');
  const me = useMe();
  const problem = me.error ? toProblem(me.error) : null;
  const signedOut = problem !== null && isSignedOut(problem);

  useEffect(() => {
    if (signedOut && token) rememberPendingInvite(invitePath(token));
  }, [signedOut, token]);

  if (!token) {
    return (
      <GuestPage title="Join a workspace">
        <Notice tone="error">This link is incomplete: open the link in the invitation e-mail again.</Notice>
      </GuestPage>
    );
  }

  if (signedOut) {
    return (
      <GuestPage title="Join a workspace" intro="You have been invited to a workspace on Unseen Stats.">
        <div className="card invite-card">
          <p>
            Sign in with <strong>the address the invitation was sent to</strong>, and you will come back to this page to join.
          </p>
          <div className="form-actions">
            <Link to="/login" className="button button-primary">
              Sign in
            </Link>
            <Link to="/signup" className="button button-secondary">
              Create an account
            </Link>
          </div>
          <p className="muted small">
            New to Unseen Stats? Create an account with the invited address and confirm it from the e-mail we send, then sign in.
            If you do not land back here, open the invitation link again: it works for 7 days.
          </p>
        </div>
      </GuestPage>
    );
  }

  const user = me.data?.user;
  return (
    <WorkspaceFrame title="Join a workspace">
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!problem && !user && <p className="loading">Loading…</p>}
      {user && <JoinWorkspace token={token} email={user.email} path={invitePath(token)} />}
    </WorkspaceFrame>
  );
}
