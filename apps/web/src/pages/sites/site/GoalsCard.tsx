import { useMutation } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { IfWritable } from '../../../components/ReadOnly.tsx';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { ActionsTable } from '../parts/ActionsTable.tsx';
import { useRefreshSite } from '../parts/useRefreshSite.ts';
import type { Site } from '../types.ts';
import { AddGoalForm } from './AddGoalForm.tsx';

/** The site's goals: an event name or a page path that counts as a conversion. */
export function GoalsCard({ site }: { site: Site }) {
  const goals = site.settings.goals;
  const refresh = useRefreshSite(site.id);
  const remove = useMutation(useTRPC().siteSettings.deleteGoal.mutationOptions({ onSuccess: refresh }));
  const deleting = remove.isPending ? remove.variables.goal : null;
  return (
    <Card title="Goals">
      <p className="card-intro">
        A goal is reached when a visitor sends an event or views a page. Goals read stored events, so earlier visits count too.
      </p>
      {remove.error && <Notice tone="error">{toProblem(remove.error).title}</Notice>}
      {goals.length === 0 ? (
        <p className="site-none">No goals yet.</p>
      ) : (
        <ActionsTable label="Goals" columns={['Name', 'Type', 'Match', 'Id']}>
          {goals.map((g) => (
            <tr key={g.id}>
              <th scope="row" className="site-cell-main">
                {g.name}
              </th>
              <td>{g.type === 'event' ? 'Event' : 'Page path'}</td>
              <td>
                <code>{g.match}</code>
              </td>
              <td>
                <code className="muted">{g.id}</code>
              </td>
              <td className="site-cell-actions">
                <ConfirmButton
                  label="Delete"
                  name={`Delete goal ${g.name}`}
                  question="Delete this goal?"
                  confirmLabel="Delete goal"
                  busy={deleting === g.id}
                  busyLabel="Deleting…"
                  disabled={deleting !== null}
                  onConfirm={() => remove.mutate({ id: site.id, goal: g.id })}
                />
              </td>
            </tr>
          ))}
        </ActionsTable>
      )}
      <IfWritable>
        <AddGoalForm siteId={site.id} />
      </IfWritable>
    </Card>
  );
}
