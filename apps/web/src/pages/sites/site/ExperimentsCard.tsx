import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { api } from '../../../trpc.ts';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { useAction } from '../../../data/useAction.ts';
import { EXPERIMENT_STATUSES, type Experiment, type ExperimentStatus, type Site } from '../types.ts';
import { AddExperimentForm } from './AddExperimentForm.tsx';

const isStatus = (v: string): v is ExperimentStatus => (EXPERIMENT_STATUSES as readonly string[]).includes(v);

/** The site's A/B experiments: each with its variants and a status to change in place. */
export function ExperimentsCard({ site, onChanged }: { site: Site; onChanged: () => void }) {
  const experiments = site.settings.experiments;
  const action = useAction();
  const setStatus = (e: Experiment, status: string) => {
    if (!isStatus(status) || status === e.status) return;
    void action.run(e.key, async () => {
      await api.siteSettings.updateExperiment.mutate({ id: site.id, key: e.key, status });
      onChanged();
    });
  };
  const remove = (e: Experiment) =>
    action.run(e.key, async () => {
      await api.siteSettings.deleteExperiment.mutate({ id: site.id, key: e.key });
      onChanged();
    });

  return (
    <Card title="Experiments">
      <p className="card-intro">
        A/B experiments: the key is the <code>data-exp</code> name in your pages. Results count while an experiment is running.
      </p>
      {action.error && <Notice tone="error">{action.error}</Notice>}
      {experiments.length === 0 ? (
        <p className="site-none">No experiments yet.</p>
      ) : (
        <div className="site-table-wrap">
          <table className="site-table" aria-label="Experiments">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Name</th>
                <th scope="col">Variants</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="site-visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {experiments.map((e) => (
                <tr key={e.key}>
                  <th scope="row" className="site-cell-main">
                    <code>{e.key}</code>
                  </th>
                  <td>{e.name ?? <span className="muted">—</span>}</td>
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
                      disabled={action.busy !== null}
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
                      busy={action.busy === e.key}
                      busyLabel="Working…"
                      disabled={action.busy !== null}
                      onConfirm={() => void remove(e)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AddExperimentForm siteId={site.id} onAdded={onChanged} />
    </Card>
  );
}
