import { useMutation } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatDate } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import type { Invite } from '../types.ts';
import { useRefreshMembers } from './useRefreshMembers.ts';

/** Pending invitations: who, as what, until when; managers may withdraw them. */
export function InvitesCard({ invites, canManage }: { invites: Invite[]; canManage: boolean }) {
  const refresh = useRefreshMembers();
  const withdraw = useMutation(useTRPC().members.deleteInvite.mutationOptions({ onSuccess: refresh }));
  const busy = withdraw.isPending ? withdraw.variables.id : null;

  return (
    <Card title="Pending invitations">
      {withdraw.error && <Notice tone="error">{toProblem(withdraw.error).title}</Notice>}
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
                        busy={busy === i.id}
                        onConfirm={() => withdraw.mutate({ id: i.id })}
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
