import { useMutation, useQuery } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { EXPORT_LIMITS } from '@us/shared';
import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { RoleNotice, useCan } from '../../../components/ReadOnly.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { formatClockTime, formatCount } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { usePath } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { SiteLinks } from '../parts/SiteLinks.tsx';
import { SiteMissing } from '../parts/SiteMissing.tsx';
import { SitesFrame } from '../parts/SitesFrame.tsx';
import { isMissingSite, siteIdOf } from '../parts/siteId.ts';

type Made = RouterOutputs['export']['create'];

const HOLDS: Record<string, string> = {
  'settings.json': 'the site: name, time zone, retention, hostnames and settings',
  'site-store.ndjson': 'one JSON object per line: settings, daily totals, search weeks, stored results and journeys per day',
  'rollups.ndjson': 'every daily rollup row',
  'archive.json': 'the raw records: one gzipped file per kind and hour, each with its own link',
  'manifest.json': 'what is where, with counts',
};

/** `/sites/<id>/export`: export all of the site's data as five files with one-hour links. */
export function ExportPage() {
  const id = siteIdOf(usePath());
  const trpc = useTRPC();
  const site = useQuery(trpc.sites.get.queryOptions({ id }));
  const create = useMutation(trpc.export.create.mutationOptions());
  const [made, setMade] = useState<Made | null>(null);
  const form = useForm({
    name: 'export',
    initial: { from: '', to: '' },
    submit: async (values) => {
      setMade(
        await create.mutateAsync({
          id,
          ...(values.from ? { from: values.from } : {}),
          ...(values.to ? { to: values.to } : {}),
        }),
      );
    },
  });
  const problem = site.error ? toProblem(site.error) : null;
  const canExport = useCan('export:read');
  if (isMissingSite(problem)) return <SiteMissing />;
  const name = site.data?.site.name;

  return (
    <SitesFrame title={name ? `${name} export` : 'Export'}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {site.data && (
        <div className="site-stack">
          <SiteLinks siteId={id} current="export" />
          <Card title="Export all data">
            <p>
              Five files, each with a download link that works for one hour and needs no sign-in: give links only to whoever may
              read this site's data. A file is written when it is first downloaded and kept for a day.{' '}
              {EXPORT_LIMITS.perSitePerHour} exports an hour per site, {EXPORT_LIMITS.perWorkspacePerHour} per workspace.
            </p>
            {canExport === false ? (
              <RoleNotice says="cannot export a site's data" />
            ) : (
              <FormShell form={form} submitLabel="Export" busyLabel="Listing the files…">
                <Field
                  label="Raw records from (optional)"
                  bind={form.field('from')}
                  type="date"
                  hint="UTC day; empty: from the oldest kept"
                />
                <Field label="Raw records to (optional)" bind={form.field('to')} type="date" hint="UTC day; empty: today" />
              </FormShell>
            )}
          </Card>
          {made && <ExportFiles made={made} />}
        </div>
      )}
    </SitesFrame>
  );
}

function ExportFiles({ made }: { made: Made }) {
  const expires = made.files[0]?.expiresAt;
  return (
    <Card title="Your files" aside={expires ? <span className="muted">links work until {formatClockTime(expires)}</span> : null}>
      <ul className="export-files" aria-label="Export files">
        {made.files.map((f) => (
          <li key={f.name}>
            <a href={f.url} download={f.name}>
              {f.name}
            </a>{' '}
            <span className="muted">— {HOLDS[f.name]}</span>
          </li>
        ))}
      </ul>
      <p data-testid="export-archive">
        The archive lists {formatCount(made.archive.files)} raw-record files with {formatCount(made.archive.records)} records
        {made.from ? ` from ${made.from}` : ''} to {made.to}.
      </p>
      {!made.archive.complete && (
        <Notice tone="info">
          The list stopped at {formatCount(EXPORT_LIMITS.archiveFiles)} files: export again with a later "from" day for the rest.
        </Notice>
      )}
    </Card>
  );
}
