import { type FormEvent, useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { toProblem } from '../../../problem.ts';
import { navigate } from '../../../router.tsx';
import { sendToSignInOn401 } from '../../../session.ts';
import { api } from '../../../trpc.ts';
import type { Site } from '../types.ts';

/** Deleting the site, once its name is typed: its keys stop at once, and its hostnames and settings go. */
export function DangerZoneCard({ site }: { site: Site }) {
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const matches = typed.trim() === site.name.trim();

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!matches || busy) return;
    setBusy(true);
    setError(null);
    try {
      await api.sites.delete.mutate({ id: site.id });
      navigate('/sites', { replace: true, flash: `${site.name} is deleted.` });
    } catch (err) {
      const p = toProblem(err);
      if (!sendToSignInOn401(p)) setError(p.title);
      setBusy(false);
    }
  };

  return (
    <div className="site-danger-card">
      <Card title="Danger zone">
        <form name="deleteSite" className="site-danger" onSubmit={(e) => void submit(e)} noValidate aria-label="Delete site">
          <p className="card-intro">
            Deleting the site removes its hostnames, keys and settings; its keys stop working at once, so pages stop being
            counted. This cannot be undone.
          </p>
          {error && (
            <p className="alert alert-error" role="alert">
              {error}
            </p>
          )}
          <div className="field">
            <label htmlFor="delete-site-name">
              Type <strong>{site.name}</strong> to confirm
            </label>
            <input
              id="delete-site-name"
              name="confirmName"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              autoComplete="off"
              spellCheck={false}
            />
          </div>
          <div className="form-actions">
            <button type="submit" className="button button-danger" disabled={!matches || busy}>
              {busy ? 'Deleting…' : 'Delete this site'}
            </button>
          </div>
        </form>
      </Card>
    </div>
  );
}
