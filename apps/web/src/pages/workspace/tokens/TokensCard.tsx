import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import type { Query } from '../../../data/useQuery.ts';
import { api } from '../../../trpc.ts';
import type { Member, SiteSummary, TokenEntry } from '../types.ts';
import { useAction } from '../../../data/useAction.ts';
import { TokenRow } from './TokenRow.tsx';

interface TokensCardProps {
  query: Query<{ tokens: TokenEntry[] }>;
  myId: string;
  canRevoke: boolean;
  sites: SiteSummary[];
  members: Member[];
  onRevoked: (id: string) => void;
}

/** The workspace's live tokens (never their secrets), newest first, each revocable after a confirmation. */
export function TokensCard({ query, myId, canRevoke, sites, members, onRevoked }: TokensCardProps) {
  const action = useAction();
  const siteName = (id: string) => sites.find((s) => s.id === id)?.name ?? id;
  const personName = (id: string) => (id === myId ? 'you' : (members.find((m) => m.userId === id)?.email ?? 'a former member'));
  const revoke = (t: TokenEntry) =>
    action.run(t.id, async () => {
      await api.tokens.delete.mutate({ id: t.id });
      onRevoked(t.id);
    });

  const tokens = query.data?.tokens ?? [];
  return (
    <Card
      title="Tokens"
      aside={query.data && <span className="muted">{tokens.length === 1 ? '1 token' : `${tokens.length} tokens`}</span>}
    >
      {action.error && <Notice tone="error">{action.error}</Notice>}
      {query.problem && <Notice tone="error">{query.problem.title}</Notice>}
      {query.loading && !query.data && <p className="loading">Loading…</p>}
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
                  busy={action.busy === t.id}
                  onRevoke={() => void revoke(t)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
