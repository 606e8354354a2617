import { useMutation } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { latestProblem } from '../../../data/latestProblem.ts';
import { navigate } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { chooseWorkspace } from '../../../workspace.ts';
import type { Member, Role } from '../types.ts';
import { MemberRow } from './MemberRow.tsx';
import { useRefreshMembers } from './useRefreshMembers.ts';

interface MembersCardProps {
  members: Member[];
  me: { id: string; role: Role | null };
  canManage: boolean;
  workspaceName: string;
}

/** The members table: roles can be changed and members removed by those who may; anyone may leave. */
export function MembersCard({ members, me, canManage, workspaceName }: MembersCardProps) {
  const trpc = useTRPC();
  const refresh = useRefreshMembers();
  const changeRole = useMutation(trpc.members.update.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(
    trpc.members.remove.mutationOptions({
      onSuccess: (_answer, { userId }) => {
        if (userId !== me.id) return refresh();
        // Left: the workspace is no longer this person's to work in.
        chooseWorkspace(null);
        navigate('/account', { flash: `You left the workspace ${workspaceName}.` });
      },
    }),
  );
  const busy = [changeRole, remove].find((m) => m.isPending)?.variables?.userId ?? null;
  const problem = latestProblem(changeRole, remove);

  return (
    <Card
      title="Members"
      aside={<span className="muted">{members.length === 1 ? '1 member' : `${members.length} members`}</span>}
    >
      {problem && <Notice tone="error">{problem.title}</Notice>}
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Two-factor</th>
              <th scope="col">Joined</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <MemberRow
                key={m.userId}
                member={m}
                isMe={m.userId === me.id}
                myRole={me.role}
                canManage={canManage}
                busy={busy === m.userId}
                onRole={(role) => changeRole.mutate({ userId: m.userId, role })}
                onRemove={() => remove.mutate({ userId: m.userId })}
              />
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
