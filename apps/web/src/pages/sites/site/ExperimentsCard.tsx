import { useMutation } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { IfWritable, useReadOnly } from '../../../components/ReadOnly.tsx';
import { latestProblem } from '../../../data/latestProblem.ts';
import { Link } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { ActionsTable } from '../parts/ActionsTable.tsx';
import { useRefreshSite } from '../parts/useRefreshSite.ts';
import { EXPERIMENT_STATUSES, type Experiment, type ExperimentStatus, type Site } from '../types.ts';
import { AddExperimentForm } from './AddExperimentForm.tsx';

const isStatus = (v: string): v is ExperimentStatus => (EXPERIMENT_STATUSES as readonly string[]).includes(v);

/** The site's A/B experiments: each with its variants and a status to change in place. */
export function ExperimentsCard({ site }: { site: Site }) {
  const experiments = site.settings.experiments;
  const trpc = useTRPC();
  const readOnly = useReadOnly();
  const refresh = useRefreshSite(site.id);
  const update = useMutation(trpc.siteSettings.updateExperiment.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.siteSettings.deleteExperiment.mutationOptions({ onSuccess: refresh }));
  const busy = [update, remove].find((m) => m.isPending)?.variables?.key ?? null;
  const problem = latestProblem(update, remove);
  const setStatus = (e: Experiment, status: string) => {
    if (isStatus(status) && status !== e.status) update.mutate({ id: site.id, key: e.key, status });
  };

  return (
    <Card title="Experiments">
      <p className="card-intro">
        A/B experiments: the key is the <code>data-exp</code> name in your pages. Results count while an experiment is running.
      </p>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {experiments.length === 0 ? (
        <p className="site-none">No experiments yet.</p>
      ) : (
        <ActionsTable label="Experiments" columns={['Key', 'Name', 'Variants', 'Status']}>
          {experiments.map((e) => (
            <tr key={e.key}>
              <th scope="row" className="site-cell-main">
                <code>{e.key}</code>
              </th>
              <td>
                {e.name ?? <span className="muted">—</span>}
                <br />
                <Link
                  to={`/sites/${encodeURIComponent(site.id)}/experiments/${encodeURIComponent(e.key)}`}
                  aria-label={`Results of ${e.key}`}
                >
                  Results
                </Link>
              </td>
              <td>
                <ul className="site-chips" aria-label={`Variants of ${e.key}`}>
                  {e.variants.map((v) => (
                    <li key={v} className="site-chip">
                      {v}
                    </li>
                  ))}
                </ul>
              </td>
              <td>
                <select
                  className="site-select-small"
                  value={e.status}
                  onChange={(ev) => setStatus(e, ev.target.value)}
                  disabled={busy !== null || readOnly}
                  aria-label={`Status of ${e.key}`}
                >
                  {EXPERIMENT_STATUSES.map((s) => (
                    <option key={s} value={s}>
                      {s.charAt(0).toUpperCase() + s.slice(1)}
                    </option>
                  ))}
                </select>
              </td>
              <td className="site-cell-actions">
                <ConfirmButton
                  label="Delete"
                  name={`Delete experiment ${e.key}`}
                  question="Delete this experiment?"
                  confirmLabel="Delete experiment"
                  busy={busy === e.key}
                  busyLabel="Working…"
                  disabled={busy !== null}
                  onConfirm={() => remove.mutate({ id: site.id, key: e.key })}
                />
              </td>
            </tr>
          ))}
        </ActionsTable>
      )}
      <IfWritable>
        <AddExperimentForm siteId={site.id} />
      </IfWritable>
    </Card>
  );
}
