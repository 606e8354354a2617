import { Card } from '../../components/Card.tsx';
import { formatDate } from '../../lib/format.ts';
import type { Me } from '../../trpc.ts';

type User = NonNullable<Me['user']>;
type Memberships = NonNullable<Me['memberships']>;

export function ProfileCard({ user, memberships }: { user: User; memberships: Memberships }) {
  return (
    <Card title="Profile">
      <dl className="facts">
        <dt>E-mail</dt>
        <dd>
          {user.email}{' '}
          {user.emailVerified ? <span className="badge badge-ok">Confirmed</span> : <span className="badge">Not confirmed</span>}
        </dd>
        <dt>Member since</dt>
        <dd>{formatDate(user.createdAt)}</dd>
        <dt>Workspaces</dt>
        <dd>
          {memberships.length === 0 ? (
            'None yet'
          ) : (
            <ul className="plain">
              {memberships.map((m) => (
                <li key={m.workspaceId}>
                  <strong>{m.name}</strong> <span className="muted">· {m.role}</span> <span className="badge">{m.plan}</span>
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </Card>
  );
}
