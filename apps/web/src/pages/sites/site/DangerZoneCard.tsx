import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { toProblem } from '../../../problem.ts';
import { navigate } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import type { Site } from '../types.ts';

/** Deleting the site, once its name is typed: its keys stop at once, and its hostnames and settings go. */
export function DangerZoneCard({ site }: { site: Site }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState('');
  const matches = typed.trim() === site.name.trim();
  const remove = useMutation(
    trpc.sites.delete.mutationOptions({
      onSuccess: () => {
        // Gone from the list at once (not shown while the list loads again), and from the plan's usage.
        queryClient.setQueryData(
          trpc.sites.list.queryKey(),
          (old) => old && { sites: old.sites.filter((s) => s.id !== site.id) },
        );
        void queryClient.invalidateQueries(trpc.sites.list.queryFilter());
        void queryClient.invalidateQueries(trpc.workspace.get.queryFilter());
        navigate('/sites', { replace: true, flash: `${site.name} is deleted.` });
      },
    }),
  );
  const busy = remove.isPending || remove.isSuccess;
  const error = remove.error ? toProblem(remove.error).title : null;

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (matches && !busy) remove.mutate({ id: site.id });
  };

  return (
    <div className="site-danger-card">
      <Card title="Danger zone">
        <form name="deleteSite" className="site-danger" onSubmit={submit} noValidate aria-label="Delete site">
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
