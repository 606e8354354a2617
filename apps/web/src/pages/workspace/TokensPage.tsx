import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Notice } from '../../components/Notice.tsx';
import { useMe } from '../../data/useMe.ts';
import { toProblem } from '../../problem.ts';
import { useTRPC } from '../../trpc.ts';
import { CreateTokenCard } from './tokens/CreateTokenCard.tsx';
import { NewTokenSecret } from './tokens/NewTokenSecret.tsx';
import { TokensCard } from './tokens/TokensCard.tsx';
import type { CreatedToken } from './types.ts';
import { WorkspaceFrame } from './WorkspaceFrame.tsx';

/** `/tokens`: the workspace's API tokens, a form for a new one, and its secret shown once. */
export function TokensPage() {
  const trpc = useTRPC();
  const me = useMe();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  // For names instead of ids; either may be refused by the caller's role, and the page does without.
  const sites = useQuery(trpc.sites.list.queryOptions());
  const members = useQuery(trpc.members.list.queryOptions());
  // The secret lives only in this state: gone when dismissed or when the page is reloaded.
  const [created, setCreated] = useState<CreatedToken | null>(null);

  const problem = me.error ? toProblem(me.error) : null;
  const user = me.data?.user;
  const canWrite = me.data?.scopes.includes('tokens:write') ?? false;

  return (
    <WorkspaceFrame title="API tokens">
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
            }}
          />
          {canWrite ? (
            <CreateTokenCard allowed={me.data.scopes} sites={sites.data?.sites ?? null} onCreated={setCreated} />
          ) : (
            <Notice tone="info">Your role ({me.data.role ?? 'none'}) cannot create tokens: ask an owner or admin.</Notice>
          )}
        </div>
      )}
    </WorkspaceFrame>
  );
}
