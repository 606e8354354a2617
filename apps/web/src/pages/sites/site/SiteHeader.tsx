import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { IfWritable } from '../../../components/ReadOnly.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { formatDate } from '../../../lib/format.ts';
import { Link } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { TimezoneField } from '../parts/TimezoneField.tsx';
import { useRefreshSite } from '../parts/useRefreshSite.ts';
import type { Site } from '../types.ts';

/** Under the site's name: its time zone and age, and an inline form to rename it or change its zone. */
export function SiteHeader({ site }: { site: Site }) {
  const [editing, setEditing] = useState(false);
  return (
    <div className="site-header">
      {editing ? (
        <RenameForm site={site} onDone={() => setEditing(false)} />
      ) : (
        <div className="site-header-row">
          <p className="site-meta">
            <Link to="/sites">All sites</Link>
            <span aria-hidden="true"> · </span>
            Time zone <strong>{site.timezone}</strong>
            <span aria-hidden="true"> · </span>
            Created {formatDate(site.createdAt)}
          </p>
          <div className="site-header-actions">
            <Link to={`/sites/${site.id}/dashboard`} className="button button-primary button-small">
              Dashboard
            </Link>
            <Link to={`/sites/${site.id}/protection`} className="button button-secondary button-small">
              Protection
            </Link>
            <Link to={`/sites/${site.id}/goals`} className="button button-secondary button-small">
              Goals
            </Link>
            <Link to={`/sites/${site.id}/funnels`} className="button button-secondary button-small">
              Funnels
            </Link>
            <Link to={`/sites/${site.id}/journeys`} className="button button-secondary button-small">
              Journeys
            </Link>
            <Link to={`/sites/${site.id}/search`} className="button button-secondary button-small">
              Search
            </Link>
            <Link to={`/sites/${site.id}/export`} className="button button-secondary button-small">
              Export
            </Link>
            <Link to={`/sites/${site.id}/imports`} className="button button-secondary button-small">
              Imports
            </Link>
            <IfWritable>
              <button
                type="button"
                className="button button-secondary button-small"
                onClick={() => setEditing(true)}
                aria-label="Rename site or change its time zone"
              >
                Rename
              </button>
            </IfWritable>
          </div>
        </div>
      )}
    </div>
  );
}

/** Closes when saved, once the site has loaded again with its new name. */
function RenameForm({ site, onDone }: { site: Site; onDone: () => void }) {
  const refresh = useRefreshSite(site.id);
  const rename = useMutation(useTRPC().sites.update.mutationOptions({ onSuccess: refresh }));
  const form = useForm({
    name: 'renameSite',
    initial: { name: site.name, timezone: site.timezone },
    submit: async (values) => {
      await rename.mutateAsync({ id: site.id, name: values.name.trim(), timezone: values.timezone });
      onDone();
    },
  });
  return (
    <FormShell
      form={form}
      submitLabel="Save"
      busyLabel="Saving…"
      label="Rename site"
      after={
        <button type="button" className="button button-link" onClick={onDone}>
          Cancel
        </button>
      }
    >
      <div className="site-form-row">
        <Field
          label="Site name"
          bind={form.field('name')}
          hint="How the site is shown in the dashboard."
          maxLength={80}
          required
          autoFocus
        />
        <TimezoneField bind={form.field('timezone')} />
      </div>
    </FormShell>
  );
}
