import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { IfWritable } from '../../../components/ReadOnly.tsx';
import { toProblem } from '../../../problem.ts';
import { Link } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { ActionsTable } from '../parts/ActionsTable.tsx';
import { AddFunnelForm } from './AddFunnelForm.tsx';
import { type Funnel, stepLabel } from './data.ts';

/** The site's funnels, each a link to its results, with delete; and the form to add one. */
export function FunnelsCard({
  siteId,
  funnels,
  selected,
  linkTo,
  onCreated,
}: {
  siteId: string;
  funnels: Funnel[];
  selected: string | null;
  linkTo: (funnel: string) => string;
  onCreated: (funnel: Funnel) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.funnels.delete.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.funnels.list.queryFilter({ id: siteId })),
    }),
  );
  const deleting = remove.isPending ? remove.variables.funnel : null;
  return (
    <Card title="Funnels">
      <p className="card-intro">
        A funnel is 2 to 8 steps, each a page or an event, counted when one session reaches them in order. Funnels read stored
        pageviews and events, so earlier visits count too.
      </p>
      {remove.error && <Notice tone="error">{toProblem(remove.error).title}</Notice>}
      {funnels.length === 0 ? (
        <p className="site-none">No funnels yet.</p>
      ) : (
        <ActionsTable label="Funnels" columns={['Name', 'Steps']}>
          {funnels.map((f) => (
            <tr key={f.id} aria-current={f.id === selected ? 'true' : undefined}>
              <th scope="row" className="site-cell-main">
                {f.id === selected ? (
                  <strong>{f.name}</strong>
                ) : (
                  <Link to={linkTo(f.id)} aria-label={`Results of ${f.name}`}>
                    {f.name}
                  </Link>
                )}
              </th>
              <td>{f.steps.map(stepLabel).join(' → ')}</td>
              <td className="site-cell-actions">
                <ConfirmButton
                  label="Delete"
                  name={`Delete funnel ${f.name}`}
                  question="Delete this funnel?"
                  confirmLabel="Delete funnel"
                  busy={deleting === f.id}
                  busyLabel="Deleting…"
                  disabled={deleting !== null}
                  onConfirm={() => remove.mutate({ id: siteId, funnel: f.id })}
                />
              </td>
            </tr>
          ))}
        </ActionsTable>
      )}
      <IfWritable>
        <AddFunnelForm siteId={siteId} onCreated={onCreated} />
      </IfWritable>
    </Card>
  );
}
