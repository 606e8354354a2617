import { Notice } from '../../components/Notice.tsx';
import { useQuery } from '../../data/useQuery.ts';
import { api } from '../../trpc.ts';
import { InviteCard } from './members/InviteCard.tsx';
import { InvitesCard } from './members/InvitesCard.tsx';
import { MembersCard } from './members/MembersCard.tsx';
import { UsageCard } from './members/UsageCard.tsx';
import { WorkspaceCard } from './members/WorkspaceCard.tsx';
import { WorkspaceFrame } from './WorkspaceFrame.tsx';

/** `/members`: the workspace's name and allowances, its members, pending invitations and a new invitation. */
export function MembersPage() {
  const me = useQuery(() => api.me.get.query());
  const workspace = useQuery(() => api.workspace.get.query());
  const list = useQuery(() => api.members.list.query());
  const problem = me.problem ?? workspace.problem ?? list.problem;
  const user = me.data?.user;
  const canManage = me.data?.scopes.includes('members:write') ?? false;
  const changed = () => {
    workspace.reload();
    list.reload();
  };

  return (
    <WorkspaceFrame title="Members" problem={problem}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!problem && (!user || !workspace.data || !list.data) && <p className="loading">Loading…</p>}
      {user && me.data && workspace.data && list.data && (
        <div className="stack">
          <div className="cards">
            <WorkspaceCard workspace={workspace.data} canRename={canManage} />
            <UsageCard workspace={workspace.data} />
          </div>
          <MembersCard
            members={list.data.members}
            me={{ id: user.id, role: me.data.role }}
            canManage={canManage}
            workspaceName={workspace.data.name}
            onChanged={changed}
          />
          <InvitesCard invites={list.data.invites} canManage={canManage} onChanged={changed} />
          {canManage && <InviteCard onInvited={changed} />}
        </div>
      )}
    </WorkspaceFrame>
  );
}
