import { useQuery } from '@tanstack/react-query';
import { Notice } from '../../components/Notice.tsx';
import { useMe } from '../../data/useMe.ts';
import { toProblem } from '../../problem.ts';
import { useTRPC } from '../../trpc.ts';
import { InviteCard } from './members/InviteCard.tsx';
import { InvitesCard } from './members/InvitesCard.tsx';
import { MembersCard } from './members/MembersCard.tsx';
import { UsageCard } from './members/UsageCard.tsx';
import { WorkspaceCard } from './members/WorkspaceCard.tsx';
import { WorkspaceFrame } from './WorkspaceFrame.tsx';

/** `/members`: the workspace's name and allowances, its members, pending invitations and a new invitation. */
export function MembersPage() {
  const trpc = useTRPC();
  const me = useMe();
  const workspace = useQuery(trpc.workspace.get.queryOptions());
  const list = useQuery(trpc.members.list.queryOptions());
  const error = me.error ?? workspace.error ?? list.error;
  const problem = error ? toProblem(error) : null;
  const user = me.data?.user;
  const canManage = me.data?.scopes.includes('members:write') ?? false;

  return (
    <WorkspaceFrame title="Members">
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
          />
          <InvitesCard invites={list.data.invites} canManage={canManage} />
          {canManage && <InviteCard />}
        </div>
      )}
    </WorkspaceFrame>
  );
}
