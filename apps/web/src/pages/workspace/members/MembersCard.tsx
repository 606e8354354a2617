import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { navigate } from '../../../router.tsx';
import { api } from '../../../trpc.ts';
import { chooseWorkspace } from '../../../workspace.ts';
import type { Member, Role } from '../types.ts';
import { useAction } from '../../../data/useAction.ts';
import { MemberRow } from './MemberRow.tsx';

interface MembersCardProps {
  members: Member[];
  me: { id: string; role: Role | null };
  canManage: boolean;
  workspaceName: string;
  onChanged: () => void;
}

/** The members table: roles can be changed and members removed by those who may; anyone may leave. */
export function MembersCard({ members, me, canManage, workspaceName, onChanged }: MembersCardProps) {
  const action = useAction();

  const changeRole = (m: Member, role: Role) =>
    action.run(m.userId, async () => {
      await api.members.update.mutate({ userId: m.userId, role });
      onChanged();
    });

  const remove = (m: Member) =>
    action.run(m.userId, async () => {
      await api.members.remove.mutate({ userId: m.userId });
      if (m.userId !== me.id) return onChanged();
      chooseWorkspace(null);
      navigate('/account', { flash: `You left the workspace ${workspaceName}.` });
    });

  return (
    <Card
      title="Members"
      aside={<span className="muted">{members.length === 1 ? '1 member' : `${members.length} members`}</span>}
    >
      {action.error && <Notice tone="error">{action.error}</Notice>}
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
                busy={action.busy === m.userId}
                onRole={(role) => void changeRole(m, role)}
                onRemove={() => void remove(m)}
              />
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
