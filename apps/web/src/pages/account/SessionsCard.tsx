import { useState } from 'react';
import { Card } from '../../components/Card.tsx';
import { Notice } from '../../components/Notice.tsx';
import type { Query } from '../../data/useQuery.ts';
import { formatDateTime } from '../../format.ts';
import { toProblem } from '../../problem.ts';
import { navigate } from '../../router.tsx';
import { sendToSignInOn401 } from '../../session.ts';
import { api, type SessionInfo } from '../../trpc.ts';

type Sessions = { sessions: SessionInfo[] };

/** Every live session of the person; each can be signed out, this browser's included. */
export function SessionsCard({ query }: { query: Query<Sessions> }) {
  const [ending, setEnding] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const end = async (s: SessionInfo) => {
    setEnding(s.id);
    setError(null);
    try {
      await api.auth.deleteSession.mutate({ id: s.id });
      if (s.current) navigate('/login', { flash: 'You are signed out.' });
      else query.reload();
    } catch (err) {
      const p = toProblem(err);
      if (!sendToSignInOn401(p)) setError(p.title);
    } finally {
      setEnding(null);
    }
  };

  const list = query.data?.sessions ?? [];
  return (
    <Card title="Sessions" aside={<span className="muted">{list.length > 0 && `${list.length} signed in`}</span>}>
      <p className="card-intro">Browsers signed in to your account. Sign out any you do not recognise.</p>
      {error && <Notice tone="error">{error}</Notice>}
      {query.problem && <Notice tone="error">{query.problem.title}</Notice>}
      {query.loading && !query.data && <p className="loading">Loading…</p>}
      <ul className="sessions">
        {list.map((s) => (
          <li key={s.id} className={s.current ? 'session session-current' : 'session'} aria-current={s.current || undefined}>
            <div className="session-main">
              <strong>{s.userAgent ?? 'Unknown browser'}</strong>
              {s.current && <span className="badge badge-ok">This browser</span>}
              <span className="muted session-meta">
                {s.ip ? `Network ${s.ip} · ` : ''}signed in {formatDateTime(s.createdAt)} · last active{' '}
                {formatDateTime(s.lastSeenAt)}
              </span>
            </div>
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => void end(s)}
              disabled={ending !== null}
              aria-label={s.current ? 'Sign out this browser' : `Sign out ${s.userAgent ?? 'unknown browser'} session`}
            >
              {ending === s.id ? 'Signing out…' : 'Sign out'}
            </button>
          </li>
        ))}
      </ul>
    </Card>
  );
}
