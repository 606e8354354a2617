import { useMutation } from '@tanstack/react-query';
import type { AlertKind } from '@us/shared';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { useTRPC } from '../../../trpc.ts';
import { SelectField } from '../parts/fields.tsx';

const KINDS: AlertKind[] = ['traffic_spike', 'traffic_drop', 'goal_drop', 'first_pageview'];
const kindOf = (v: string): AlertKind => KINDS.find((k) => k === v) ?? 'traffic_spike';

/** A new alert rule; the answer's webhook secret (shown once) goes to `onAdded`. */
export function AddAlertForm({ siteId, onAdded }: { siteId: string; onAdded: (secret: string | null) => void }) {
  const add = useMutation(useTRPC().alerts.create.mutationOptions());
  const form = useForm({
    name: 'addAlert',
    initial: { kind: 'traffic_spike', thresholdPercent: '50', goal: '', window: 'day', recipients: '', webhookUrl: '' },
    submit: async (values) => {
      const kind = kindOf(values.kind);
      const recipients = values.recipients
        .split(/[\s,;]+/)
        .map((a) => a.trim())
        .filter(Boolean);
      const made = await add.mutateAsync({
        id: siteId,
        kind,
        ...(kind === 'first_pageview' ? {} : { thresholdPercent: Number(values.thresholdPercent) }),
        ...(kind === 'goal_drop' ? { goal: values.goal.trim() } : {}),
        window: values.window === 'hour' ? 'hour' : 'day',
        recipients,
        webhookUrl: values.webhookUrl.trim() || null,
      });
      form.reset();
      onAdded(made.webhookSecret);
    },
  });
  const kind = form.field('kind').value;
  return (
    <div className="site-subsection">
      <h3 className="site-subheading">Add an alert</h3>
      <FormShell form={form} submitLabel="Add alert" busyLabel="Adding…" variant="secondary" label="Add an alert">
        <div className="site-form-row">
          <SelectField label="When" bind={form.field('kind')}>
            <option value="traffic_spike">Traffic spikes</option>
            <option value="traffic_drop">Traffic drops</option>
            <option value="goal_drop">A goal's conversions fall</option>
            <option value="first_pageview">The first pageview arrives</option>
          </SelectField>
          {kind !== 'first_pageview' && (
            <>
              <Field label="By at least (%)" type="number" min={1} bind={form.field('thresholdPercent')} required />
              <SelectField label="Compared per" bind={form.field('window')}>
                <option value="day">Day</option>
                <option value="hour">Hour</option>
              </SelectField>
            </>
          )}
          {kind === 'goal_drop' && <Field label="Goal name" bind={form.field('goal')} required />}
        </div>
        <div className="site-form-row">
          <Field
            label="E-mail addresses"
            hint="Separated by commas; each new address is asked to confirm first"
            bind={form.field('recipients')}
            placeholder="team@example.com"
          />
          <Field
            label="Webhook URL (optional)"
            type="url"
            bind={form.field('webhookUrl')}
            placeholder="https://example.com/hooks/unseen"
          />
        </div>
      </FormShell>
    </div>
  );
}
