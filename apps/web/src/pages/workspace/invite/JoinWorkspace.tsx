import { useEffect, useState } from 'react';
import { Notice } from '../../../components/Notice.tsx';
import { toProblem } from '../../../problem.ts';
import { navigate } from '../../../router.tsx';
import { sendToSignInOn401, signOut } from '../../../session.ts';
import { api } from '../../../trpc.ts';
import { chooseWorkspace } from '../../../workspace.ts';
import { forgetPendingInvite, rememberPendingInvite } from '../pendingInvite.ts';

/** The name of a workspace the person now belongs to, for the welcome message. */
async function workspaceName(id: string): Promise<string> {
  try {
    const me = await api.me.get.query();
    return me.memberships?.find((m) => m.workspaceId === id)?.name ?? 'the workspace';
  } catch {
    return 'the workspace';
  }
}

/** Signed in: join with one click, then work in the new workspace. A 404 means wrong account or stale link. */
export function JoinWorkspace({ token, email, path }: { token: string; email: string; path: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notForYou, setNotForYou] = useState(false);

  // Here and signed in: nothing left to come back to after a sign-in.
  useEffect(() => forgetPendingInvite(), []);

  const join = async () => {
    setBusy(true);
    setError(null);
    setNotForYou(false);
    try {
      const { workspaceId, role } = await api.members.acceptInvite.mutate({ token });
      chooseWorkspace(workspaceId);
      const name = await workspaceName(workspaceId);
      navigate('/members', { flash: `Welcome to ${name}: you joined as ${role}.` });
    } catch (err) {
      const p = toProblem(err);
      if (p.status === 401) rememberPendingInvite(path);
      if (sendToSignInOn401(p)) return;
      if (p.status === 404) setNotForYou(true);
      else setError(p.title);
      setBusy(false);
    }
  };

  const switchAccount = () => {
    rememberPendingInvite(path);
    signOut().catch((err: unknown) => setError(toProblem(err).title));
  };

  return (
    <div className="card invite-card">
      {notForYou && (
        <Notice tone="error">
          This invitation is not for this account, or it has expired. Sign in with the address it was sent to, or ask for a new
          invitation.
        </Notice>
      )}
      {error && <Notice tone="error">{error}</Notice>}
      <p>
        You are signed in as <strong>{email}</strong>. Join to see the workspace’s sites and reports with the role you were
        invited with.
      </p>
      <div className="form-actions">
        <button type="button" className="button button-primary" onClick={() => void join()} disabled={busy}>
          {busy ? 'Joining…' : 'Join workspace'}
        </button>
        <button type="button" className="button button-link" onClick={switchAccount}>
          Sign in with another account
        </button>
      </div>
    </div>
  );
}
