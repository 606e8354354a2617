import { useMutation } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { useReadOnly } from '../../../components/ReadOnly.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { SelectField, TextAreaField } from '../parts/fields.tsx';
import { type Search, useRefreshSearch } from './data.ts';

type LastPull = NonNullable<Search['primary']>['lastPull'];

function PullState({ lastPull }: { lastPull: LastPull }) {
  if (!lastPull) return <p className="muted">Connected: the first figures arrive with the next hourly pull.</p>;
  const at = new Date(lastPull.at).toLocaleString();
  return lastPull.ok ? (
    <p className="muted">Last pull {at}: done.</p>
  ) : (
    <Notice tone="error">
      {lastPull.message} ({at}; tried again automatically)
    </Notice>
  );
}

/** The two sources: what is connected, how the last pull went, and the forms to connect or disconnect. */
export function ConnectionsCard({ siteId, search }: { siteId: string; search: Search }) {
  const readOnly = useReadOnly();
  return (
    <>
      <Card title="Google Search Console">
        {search.primary ? (
          <Connected
            siteId={siteId}
            source="primary"
            name={search.primary.property}
            lastPull={search.primary.lastPull}
            stopped={search.primary.statusMessage}
          >
            {search.primary.mode === 'delegated' ? 'Delegated access' : `Service account ${search.primary.account}`}
          </Connected>
        ) : readOnly ? (
          <p className="site-none">Not connected.</p>
        ) : (
          <PrimaryForm siteId={siteId} serviceAccount={search.serviceAccount} />
        )}
      </Card>
      <Card title="Bing Webmaster Tools">
        {search.secondary ? (
          <Connected siteId={siteId} source="secondary" name={search.secondary.siteUrl} lastPull={search.secondary.lastPull}>
            API key (never shown again)
          </Connected>
        ) : readOnly ? (
          <p className="site-none">Not connected.</p>
        ) : (
          <SecondaryForm siteId={siteId} />
        )}
      </Card>
    </>
  );
}

function Connected(props: {
  siteId: string;
  source: 'primary' | 'secondary';
  name: string;
  lastPull: LastPull;
  /** Why pulls are stopped (delegated access no longer holds), or null. */
  stopped?: string | null;
  children: string;
}) {
  const trpc = useTRPC();
  const refresh = useRefreshSearch(props.siteId);
  const remove = useMutation(
    (props.source === 'primary' ? trpc.search.deletePrimary : trpc.search.deleteSecondary).mutationOptions({
      onSuccess: refresh,
    }),
  );
  return (
    <div className="site-stack" data-testid={`search-${props.source}`}>
      <p>
        <strong>{props.name}</strong> · {props.children}
      </p>
      {props.stopped && <Notice tone="error">{props.stopped}</Notice>}
      <PullState lastPull={props.lastPull} />
      <ConfirmButton
        label="Disconnect"
        name={`Disconnect ${props.name}`}
        question="Disconnect? Its credentials are deleted; the weeks collected so far stay."
        confirmLabel="Disconnect"
        busy={remove.isPending}
        onConfirm={() => remove.mutate({ id: props.siteId })}
      />
      {remove.error && <Notice tone="error">{toProblem(remove.error).title}</Notice>}
    </div>
  );
}

function PrimaryForm({ siteId, serviceAccount }: { siteId: string; serviceAccount: string | null }) {
  const refresh = useRefreshSearch(siteId);
  const connect = useMutation(useTRPC().search.updatePrimary.mutationOptions({ onSuccess: refresh }));
  const form = useForm({
    name: 'search-primary',
    initial: { mode: serviceAccount ? 'delegated' : 'service_account', property: '', key: '' },
    submit: async (v) => {
      await connect.mutateAsync({
        id: siteId,
        mode: v.mode as 'delegated' | 'service_account',
        property: v.property,
        ...(v.mode === 'service_account' ? { key: v.key } : {}),
      });
    },
  });
  const delegated = form.values.mode === 'delegated';
  return (
    <FormShell form={form} submitLabel="Connect" busyLabel="Checking with Google…">
      <SelectField label="Access" bind={form.field('mode')}>
        {serviceAccount && <option value="delegated">Delegated: grant our service account access</option>}
        <option value="service_account">My own service-account key</option>
      </SelectField>
      {delegated && serviceAccount && (
        <p className="field-hint">
          In Search Console, add <strong>{serviceAccount}</strong> as a user of the property (restricted is enough); the property
          must cover a verified hostname of this site.
        </p>
      )}
      <Field label="Property" bind={form.field('property')} hint="https://example.com/ or sc-domain:example.com" />
      {!delegated && (
        <TextAreaField label="Service-account key file (JSON)" bind={form.field('key')} rows={6} spellCheck={false} />
      )}
    </FormShell>
  );
}

function SecondaryForm({ siteId }: { siteId: string }) {
  const refresh = useRefreshSearch(siteId);
  const connect = useMutation(useTRPC().search.updateSecondary.mutationOptions({ onSuccess: refresh }));
  const form = useForm({
    name: 'search-secondary',
    initial: { apiKey: '', siteUrl: '' },
    submit: async (v) => {
      await connect.mutateAsync({ id: siteId, apiKey: v.apiKey, siteUrl: v.siteUrl });
    },
  });
  return (
    <FormShell form={form} submitLabel="Connect" busyLabel="Checking with Bing…">
      <Field label="API key" bind={form.field('apiKey')} hint="Bing Webmaster Tools → Settings → API access" autoComplete="off" />
      <Field label="Site URL" bind={form.field('siteUrl')} hint="As registered and verified there, e.g. https://example.com/" />
    </FormShell>
  );
}
