import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { useTRPC } from '../../../trpc.ts';
import { SCOPES, type Scope } from '../scopes.ts';
import type { CreatedToken, SiteSummary } from '../types.ts';
import { ScopePicker } from './ScopePicker.tsx';
import { SitePicker } from './SitePicker.tsx';

/** Today as YYYY-MM-DD in the browser's zone, the earliest expiry date a token can have. */
function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** A date input's YYYY-MM-DD as the end of that day in the browser's zone. */
const endOfDay = (date: string) => new Date(`${date}T23:59:59`).toISOString();

interface CreateTokenCardProps {
  allowed: readonly Scope[];
  sites: SiteSummary[] | null;
  onCreated: (token: CreatedToken) => void;
}

/** The new-token form: name, scopes, optional site restriction and expiry date. */
export function CreateTokenCard({ allowed, sites, onCreated }: CreateTokenCardProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.tokens.list.queryFilter()),
    }),
  );
  const [scopes, setScopes] = useState<Set<Scope>>(new Set());
  const [siteIds, setSiteIds] = useState<string[] | null>(null);
  // scopes and siteIds live outside useForm's strings; their keys are here so their problems show in place.
  const form = useForm({
    name: 'createToken',
    initial: { name: '', scopes: '', siteIds: '', expiresAt: '' },
    submit: async (values) => {
      const created = await create.mutateAsync({
        name: values.name,
        scopes: SCOPES.filter((s) => scopes.has(s)),
        siteIds,
        expiresAt: values.expiresAt ? endOfDay(values.expiresAt) : null,
      });
      form.reset();
      setScopes(new Set());
      setSiteIds(null);
      onCreated(created);
    },
  });

  return (
    <Card title="New token">
      <FormShell form={form} submitLabel="Create token" busyLabel="Creating…" label="New token">
        <Field
          label="Name"
          bind={form.field('name')}
          hint="What uses it, such as “Nightly export” or “Claude Desktop”."
          autoComplete="off"
          maxLength={80}
          required
        />
        <ScopePicker
          id="createToken-scopes"
          selected={scopes}
          allowed={allowed}
          error={form.field('scopes').error}
          onChange={setScopes}
        />
        <SitePicker
          id="createToken-siteIds"
          sites={sites}
          chosen={siteIds}
          error={form.field('siteIds').error}
          onChange={setSiteIds}
        />
        <Field
          label="Expires (optional)"
          bind={form.field('expiresAt')}
          type="date"
          min={today()}
          hint="The token stops working at the end of this day. Leave it empty for a token that does not expire."
          className="input-date"
        />
      </FormShell>
    </Card>
  );
}
