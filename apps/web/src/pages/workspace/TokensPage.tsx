import { useState } from 'react';
import { Notice } from '../../components/Notice.tsx';
import { useQuery } from '../../data/useQuery.ts';
import { api } from '../../trpc.ts';
import { CreateTokenCard } from './tokens/CreateTokenCard.tsx';
import { NewTokenSecret } from './tokens/NewTokenSecret.tsx';
import { TokensCard } from './tokens/TokensCard.tsx';
import type { CreatedToken } from './types.ts';
import { WorkspaceFrame } from './WorkspaceFrame.tsx';

/** `/tokens`: the workspace's API tokens, a form for a new one, and its secret shown once. */
export function TokensPage() {
  const me = useQuery(() => api.me.get.query());
  const tokens = useQuery(() => api.tokens.list.query());
  // For names instead of ids; either may be refused by the caller's role, and the page does without.
  const sites = useQuery(() => api.sites.list.query());
  const members = useQuery(() => api.members.list.query());
  // The secret lives only in this state: gone when dismissed or when the page is reloaded.
  const [created, setCreated] = useState<CreatedToken | null>(null);

  const problem = me.problem ?? (tokens.problem?.status === 401 ? tokens.problem : null);
  const user = me.data?.user;
  const canWrite = me.data?.scopes.includes('tokens:write') ?? false;

  return (
    <WorkspaceFrame title="API tokens" problem={problem}>
      <p className="lead">
        Tokens let scripts and AI tools use the API (REST and MCP) in this workspace, with only the scopes you give them.
      </p>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!problem && !user && <p className="loading">Loading…</p>}
      {user && me.data && (
        <div className="stack">
          {created && <NewTokenSecret token={created} onDismiss={() => setCreated(null)} />}
          <TokensCard
            query={tokens}
            myId={user.id}
            canRevoke={canWrite}
            sites={sites.data?.sites ?? []}
            members={members.data?.members ?? []}
            onRevoked={(id) => {
              if (created?.id === id) setCreated(null);
              tokens.reload();
            }}
          />
          {canWrite ? (
            <CreateTokenCard
              allowed={me.data.scopes}
              sites={sites.data?.sites ?? null}
              onCreated={(t) => {
                setCreated(t);
                tokens.reload();
              }}
            />
          ) : (
            <Notice tone="info">Your role ({me.data.role ?? 'none'}) cannot create tokens: ask an owner or admin.</Notice>
          )}
        </div>
      )}
    </WorkspaceFrame>
  );
}
