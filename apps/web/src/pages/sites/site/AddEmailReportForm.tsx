import { useMutation } from '@tanstack/react-query';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { useTRPC } from '../../../trpc.ts';
import { SelectField } from '../parts/fields.tsx';

/** A new report address, weekly or monthly. */
export function AddEmailReportForm({ siteId, onAdded }: { siteId: string; onAdded: () => void }) {
  const add = useMutation(useTRPC().reports.add.mutationOptions({ onSuccess: onAdded }));
  const form = useForm({
    name: 'addReport',
    initial: { address: '', frequency: 'weekly' },
    submit: async (values) => {
      await add.mutateAsync({
        id: siteId,
        address: values.address.trim(),
        frequency: values.frequency === 'monthly' ? 'monthly' : 'weekly',
      });
      form.reset();
    },
  });
  return (
    <div className="site-subsection">
      <h3 className="site-subheading">Add an address</h3>
      <FormShell form={form} submitLabel="Add report" busyLabel="Adding…" variant="secondary" label="Add an e-mail report">
        <div className="site-form-row">
          <Field label="E-mail address" type="email" bind={form.field('address')} placeholder="team@example.com" required />
          <SelectField label="Frequency" bind={form.field('frequency')}>
            <option value="weekly">Weekly</option>
            <option value="monthly">Monthly</option>
          </SelectField>
        </div>
      </FormShell>
    </div>
  );
}
