import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { formatDate, formatDateTime } from '../../../lib/format.ts';
import type { TokenEntry } from '../types.ts';

interface TokenRowProps {
  token: TokenEntry;
  siteName: (id: string) => string;
  personName: (id: string) => string;
  canRevoke: boolean;
  busy: boolean;
  onRevoke: () => void;
}

export function TokenRow({ token: t, siteName, personName, canRevoke, busy, onRevoke }: TokenRowProps) {
  const expired = t.expiresAt !== null && new Date(t.expiresAt).getTime() <= Date.now();
  return (
    <tr>
      <th scope="row" className="cell-main">
        {t.name}
      </th>
      <td>
        <code className="prefix">{t.prefix}…</code>
      </td>
      <td>
        <ul className="chips" aria-label={`Scopes of ${t.name}`}>
          {t.scopes.map((s) => (
            <li key={s} className="chip">
              {s}
            </li>
          ))}
        </ul>
      </td>
      <td>{t.siteIds === null ? 'All sites' : t.siteIds.map(siteName).join(', ')}</td>
      <td>
        <span className="nowrap">{formatDate(t.createdAt)}</span>
        <span className="muted cell-note">by {personName(t.createdBy)}</span>
      </td>
      <td className="nowrap">
        {t.expiresAt === null ? 'Never' : formatDate(t.expiresAt)}
        {expired && <span className="badge badge-danger">Expired</span>}
      </td>
      <td>{t.lastUsedAt === null ? 'Never' : formatDateTime(t.lastUsedAt)}</td>
      {canRevoke && (
        <td className="cell-actions">
          <ConfirmButton
            label="Revoke"
            name={`Revoke ${t.name}`}
            question={`Revoke ${t.name}? Anything using it stops working at once.`}
            confirmLabel="Revoke"
            busy={busy}
            onConfirm={onRevoke}
          />
        </td>
      )}
    </tr>
  );
}
