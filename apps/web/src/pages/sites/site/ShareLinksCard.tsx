import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { IfWritable } from '../../../components/ReadOnly.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { ActionsTable } from '../parts/ActionsTable.tsx';
import { CopyButton } from '../parts/CopyButton.tsx';
import { TakeOverButton } from '../parts/TakeOverButton.tsx';
import { useIsOwner } from '../parts/useIsOwner.ts';
import { AddShareLinkForm } from './AddShareLinkForm.tsx';

/**
 * Read-only links to the site's dashboard: whoever holds one sees the figures, never settings or keys. A
 * link made by a member who left does not open until an owner takes it over (it keeps its address).
 */
export function ShareLinksCard({ siteId }: { siteId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const links = useQuery(trpc.shares.list.queryOptions({ id: siteId }));
  const refresh = () => queryClient.invalidateQueries(trpc.shares.list.queryFilter({ id: siteId }));
  const revoke = useMutation(trpc.shares.revoke.mutationOptions({ onSuccess: refresh }));
  const revoking = revoke.isPending ? revoke.variables.linkId : null;
  const takeOver = useMutation(trpc.shares.takeOver.mutationOptions({ onSuccess: refresh }));
  const isOwner = useIsOwner();
  const list = links.data?.links ?? [];
  return (
    <Card title="Shared links">
      <p className="card-intro">
        A shared link opens this site's dashboard read-only, with its filters and tables, for anyone who has it (and its password,
        if you set one). Revoke it and it stops working at once. A link stops too when the member who made it leaves the
        workspace, until an owner takes it over.
      </p>
      {links.error && <Notice tone="error">{toProblem(links.error).title}</Notice>}
      {revoke.error && <Notice tone="error">{toProblem(revoke.error).title}</Notice>}
      {takeOver.error && <Notice tone="error">{toProblem(takeOver.error).title}</Notice>}
      {links.data && list.length === 0 && <p className="site-none">No shared links yet.</p>}
      {list.length > 0 && (
        <ActionsTable label="Shared links" columns={['Label', 'Link', 'Password', 'Embedding', 'Status', 'Last opened']}>
          {list.map((l) => (
            <tr key={l.id}>
              <th scope="row" className="site-cell-main share-label">
                {l.label}
              </th>
              <td>
                <code className="share-url">{l.url}</code> <CopyButton value={l.url} label={`Copy the link ${l.label}`} />
              </td>
              <td>{l.hasPassword ? 'Yes' : 'No'}</td>
              <td>{l.allowEmbedding ? 'On this site’s hostnames' : 'Nowhere'}</td>
              <td>{l.creatorLeft ? 'Stopped: made by a member who left' : 'Opens'}</td>
              <td>{formatDateTime(l.lastOpenedAt)}</td>
              <td className="site-cell-actions">
                <TakeOverButton
                  shown={l.creatorLeft && isOwner}
                  name={`Take over the link ${l.label}`}
                  disabled={takeOver.isPending}
                  onClick={() => takeOver.mutate({ id: siteId, linkId: l.id })}
                />
                <ConfirmButton
                  label="Revoke"
                  name={`Revoke the link ${l.label}`}
                  question="Revoke this link? Whoever has it loses the dashboard at once."
                  confirmLabel="Revoke link"
                  busy={revoking === l.id}
                  busyLabel="Revoking…"
                  disabled={revoking !== null}
                  onConfirm={() => revoke.mutate({ id: siteId, linkId: l.id })}
                />
              </td>
            </tr>
          ))}
        </ActionsTable>
      )}
      <IfWritable>
        <AddShareLinkForm siteId={siteId} onCreated={refresh} />
      </IfWritable>
    </Card>
  );
}
