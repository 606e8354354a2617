import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { formatDate } from '../../../lib/format.ts';
import { ALL_ROLES, INVITE_ROLES, type Member, type Role } from '../types.ts';

interface MemberRowProps {
  member: Member;
  isMe: boolean;
  myRole: Role | null;
  canManage: boolean;
  busy: boolean;
  onRole: (role: Role) => void;
  onRemove: () => void;
}

/** One member: their role is a drop-down for managers (owners only by owners), plus remove or leave. */
export function MemberRow({ member: m, isMe, myRole, canManage, busy, onRole, onRemove }: MemberRowProps) {
  const roles = myRole === 'owner' ? ALL_ROLES : INVITE_ROLES;
  const canChange = canManage && !isMe && (myRole === 'owner' || m.role !== 'owner');
  const selectId = `role-${m.userId}`;

  return (
    <tr>
      <th scope="row" className="cell-main">
        {m.email} {isMe && <span className="badge">You</span>}
      </th>
      <td>
        {canChange ? (
          <>
            <label htmlFor={selectId} className="visually-hidden">
              Role of {m.email}
            </label>
            <select
              id={selectId}
              className="select-small"
              value={m.role}
              disabled={busy}
              onChange={(e) => onRole(e.target.value as Role)}
            >
              {roles.map((r) => (
                <option key={r} value={r}>
                  {r.charAt(0).toUpperCase() + r.slice(1)}
                </option>
              ))}
            </select>
          </>
        ) : (
          <span className="role">{m.role}</span>
        )}
      </td>
      <td>{m.twoFactor ? <span className="badge badge-ok">On</span> : <span className="badge">Off</span>}</td>
      <td className="nowrap">{formatDate(m.joinedAt)}</td>
      <td className="cell-actions">
        {isMe ? (
          <ConfirmButton
            label="Leave workspace"
            name="Leave workspace"
            question="Leave this workspace? Your tokens here are revoked; the shared links and e-mail reports you made stop until an owner takes them over."
            confirmLabel="Leave"
            busy={busy}
            onConfirm={onRemove}
          />
        ) : (
          canChange && (
            <ConfirmButton
              label="Remove"
              name={`Remove ${m.email}`}
              question={`Remove ${m.email}? Their tokens here are revoked; the shared links and e-mail reports they made stop until an owner takes them over on the site's page.`}
              confirmLabel="Remove"
              busy={busy}
              onConfirm={onRemove}
            />
          )
        )}
      </td>
    </tr>
  );
}
