import { type UseQueryResult, useMutation, useQueryClient } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import type { Member, SiteSummary } from '../types.ts';
import { TokenRow } from './TokenRow.tsx';

interface TokensCardProps {
  query: UseQueryResult<RouterOutputs['tokens']['list'], unknown>;
  myId: string;
  canRevoke: boolean;
  sites: SiteSummary[];
  members: Member[];
  onRevoked: (id: string) => void;
}

/** The workspace's live tokens (never their secrets), newest first, each revocable after a confirmation. */
export function TokensCard({ query, myId, canRevoke, sites, members, onRevoked }: TokensCardProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(
    trpc.tokens.delete.mutationOptions({
      onSuccess: (_answer, { id }) => {
        onRevoked(id);
        return queryClient.invalidateQueries(trpc.tokens.list.queryFilter());
      },
    }),
  );
  const busy = revoke.isPending ? revoke.variables.id : null;
  const siteName = (id: string) => sites.find((s) => s.id === id)?.name ?? id;
  const personName = (id: string) => (id === myId ? 'you' : (members.find((m) => m.userId === id)?.email ?? 'a former member'));

  const tokens = query.data?.tokens ?? [];
  return (
    <Card
      title="Tokens"
      aside={query.data && <span className="muted">{tokens.length === 1 ? '1 token' : `${tokens.length} tokens`}</span>}
    >
      {revoke.error && <Notice tone="error">{toProblem(revoke.error).title}</Notice>}
      {query.isError && <Notice tone="error">{toProblem(query.error).title}</Notice>}
      {query.isPending && <p className="loading">Loading…</p>}
      {query.data && tokens.length === 0 && <p className="muted">No tokens yet.</p>}
      {tokens.length > 0 && (
        <div className="table-wrap">
          <table className="table table-tokens">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Sites</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                {canRevoke && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <TokenRow
                  key={t.id}
                  token={t}
                  siteName={siteName}
                  personName={personName}
                  canRevoke={canRevoke}
                  busy={busy === t.id}
                  onRevoke={() => revoke.mutate({ id: t.id })}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
