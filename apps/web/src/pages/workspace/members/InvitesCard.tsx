import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatDate } from '../../../format.ts';
import { api } from '../../../trpc.ts';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import type { Invite } from '../types.ts';
import { useAction } from '../../../data/useAction.ts';

/** Pending invitations: who, as what, until when; managers may withdraw them. */
export function InvitesCard({ invites, canManage, onChanged }: { invites: Invite[]; canManage: boolean; onChanged: () => void }) {
  const action = useAction();
  const withdraw = (i: Invite) =>
    action.run(i.id, async () => {
      await api.members.deleteInvite.mutate({ id: i.id });
      onChanged();
    });

  return (
    <Card title="Pending invitations">
      {action.error && <Notice tone="error">{action.error}</Notice>}
      {invites.length === 0 ? (
        <p className="muted">No pending invitations.</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Sent</th>
                <th scope="col">Expires</th>
                {canManage && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {invites.map((i) => (
                <tr key={i.id}>
                  <th scope="row" className="cell-main">
                    {i.email}
                  </th>
                  <td className="role">{i.role}</td>
                  <td className="nowrap">{formatDate(i.createdAt)}</td>
                  <td className="nowrap">{formatDate(i.expiresAt)}</td>
                  {canManage && (
                    <td className="cell-actions">
                      <ConfirmButton
                        label="Withdraw"
                        name={`Withdraw the invitation of ${i.email}`}
                        question={`Withdraw the invitation of ${i.email}? Its link stops working.`}
                        confirmLabel="Withdraw"
                        busy={action.busy === i.id}
                        onConfirm={() => void withdraw(i)}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
