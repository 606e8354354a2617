import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { navigate } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { TextAreaField } from '../parts/fields.tsx';
import { aimAtList } from '../parts/listProblem.ts';
import { TimezoneField } from '../parts/TimezoneField.tsx';
import { browserTimeZone } from '../parts/timezones.ts';

/** The non-empty lines of the textarea, each with its line number (for pointing at a bad one). */
function hostnameLines(text: string): { hostname: string; line: number }[] {
  return text
    .split('\n')
    .map((raw, i) => ({ hostname: raw.trim(), line: i + 1 }))
    .filter((l) => l.hostname !== '');
}

/** A new site: name, time zone (the browser's preselected) and hostnames one per line; then on to its page. */
export function CreateSiteCard({ first }: { first: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // A new site is in the list and counts against the plan's allowance.
  const create = useMutation(
    trpc.sites.create.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries(trpc.sites.list.queryFilter()),
          queryClient.invalidateQueries(trpc.workspace.get.queryFilter()),
        ]),
    }),
  );
  const [limit, setLimit] = useState<string | null>(null);
  const sent = useRef<{ hostname: string; line: number }[]>([]);
  const form = useForm({
    name: 'createSite',
    initial: { name: '', timezone: browserTimeZone(), hostnames: '' },
    onProblem: (p) => {
      if (p.status === 402) {
        setLimit(p.title);
        return true;
      }
      return aimAtList(p, 'hostnames', (i) => {
        const l = sent.current[i];
        return l ? `Line ${l.line} (${l.hostname})` : `Hostname ${i + 1}`;
      });
    },
    submit: async (values) => {
      setLimit(null);
      sent.current = hostnameLines(values.hostnames);
      const { site } = await create.mutateAsync({
        name: values.name.trim(),
        timezone: values.timezone,
        hostnames: sent.current.map((l) => l.hostname),
      });
      navigate(`/sites/${site.id}`, {
        flash: `${site.name} is created. Paste the snippet below into its pages, and verify its hostnames.`,
      });
    },
  });
  return (
    <Card title={first ? 'Create your first site' : 'Add a site'}>
      {limit && (
        <div className="alert alert-error site-limit" role="alert">
          <strong>Your plan’s site limit is reached.</strong> {limit}
        </div>
      )}
      <FormShell form={form} submitLabel="Create site" busyLabel="Creating…" label="Create a site">
        <div className="site-form-row">
          <Field
            label="Name"
            bind={form.field('name')}
            hint="How the site is shown in the dashboard."
            maxLength={80}
            placeholder="My shop"
            required
          />
          <TimezoneField bind={form.field('timezone')} />
        </div>
        <TextAreaField
          label="Hostnames (optional)"
          bind={form.field('hostnames')}
          hint="One per line, such as www.example.com: no https:// and no path. Each gets a DNS record to verify it."
          rows={3}
          spellCheck={false}
          autoCapitalize="none"
          placeholder={'example.com\nwww.example.com'}
        />
      </FormShell>
    </Card>
  );
}
