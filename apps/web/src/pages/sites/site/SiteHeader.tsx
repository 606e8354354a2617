import { useState } from 'react';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { formatDate } from '../../../format.ts';
import { useForm } from '../../../forms/useForm.ts';
import { Link } from '../../../router.tsx';
import { sendToSignInOn401 } from '../../../session.ts';
import { api } from '../../../trpc.ts';
import { TimezoneField } from '../parts/TimezoneField.tsx';
import type { Site } from '../types.ts';

/** Under the site's name: its time zone and age, and an inline form to rename it or change its zone. */
export function SiteHeader({ site, onChanged }: { site: Site; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  return (
    <div className="site-header">
      {editing ? (
        <RenameForm
          site={site}
          onDone={(changed) => {
            setEditing(false);
            if (changed) onChanged();
          }}
        />
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
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => setEditing(true)}
              aria-label="Rename site or change its time zone"
            >
              Rename
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

function RenameForm({ site, onDone }: { site: Site; onDone: (changed: boolean) => void }) {
  const form = useForm({
    name: 'renameSite',
    initial: { name: site.name, timezone: site.timezone },
    onProblem: sendToSignInOn401,
    submit: async (values) => {
      await api.sites.update.mutate({ id: site.id, name: values.name.trim(), timezone: values.timezone });
      onDone(true);
    },
  });
  return (
    <FormShell
      form={form}
      submitLabel="Save"
      busyLabel="Saving…"
      label="Rename site"
      after={
        <button type="button" className="button button-link" onClick={() => onDone(false)}>
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
