import { type UseQueryResult, useMutation, useQueryClient } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { Card } from '../../components/Card.tsx';
import { Notice } from '../../components/Notice.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { toProblem } from '../../problem.ts';
import { endSession } from '../../session.ts';
import { useTRPC } from '../../trpc.ts';

type Sessions = UseQueryResult<RouterOutputs['auth']['sessions'], unknown>;

/** Every live session of the person; each can be signed out, this browser's included. */
export function SessionsCard({ query }: { query: Sessions }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = query.data?.sessions ?? [];
  const end = useMutation(
    trpc.auth.deleteSession.mutationOptions({
      onSuccess: (_answer, { id }) =>
        list.find((s) => s.id === id)?.current
          ? endSession(queryClient, 'You are signed out.')
          : queryClient.invalidateQueries(trpc.auth.sessions.queryFilter()),
    }),
  );
  const ending = end.isPending ? end.variables.id : null;

  return (
    <Card title="Sessions" aside={<span className="muted">{list.length > 0 && `${list.length} signed in`}</span>}>
      <p className="card-intro">Browsers signed in to your account. Sign out any you do not recognise.</p>
      {end.error && <Notice tone="error">{toProblem(end.error).title}</Notice>}
      {query.isError && <Notice tone="error">{toProblem(query.error).title}</Notice>}
      {query.isPending && <p className="loading">Loading…</p>}
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
              onClick={() => end.mutate({ id: s.id })}
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
