import { useMutation } from '@tanstack/react-query';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { useTRPC } from '../../../trpc.ts';

/** A new shared link: what it is for, and an optional password asked before the dashboard opens. */
export function AddShareLinkForm({ siteId, onCreated }: { siteId: string; onCreated: () => void }) {
  const create = useMutation(useTRPC().shares.create.mutationOptions({ onSuccess: onCreated }));
  const form = useForm({
    name: 'addShare',
    initial: { label: '', password: '' },
    submit: async (values) => {
      await create.mutateAsync({
        id: siteId,
        label: values.label.trim(),
        ...(values.password === '' ? {} : { password: values.password }),
      });
      form.reset();
    },
  });
  return (
    <div className="site-subsection">
      <h3 className="site-subheading">Create a shared link</h3>
      <FormShell
        form={form}
        submitLabel="Create shared link"
        busyLabel="Creating…"
        variant="secondary"
        label="Create a shared link"
      >
        <div className="site-form-row">
          <Field label="Label" bind={form.field('label')} maxLength={80} placeholder="Board report" required />
          <Field
            label="Password (optional)"
            type="password"
            autoComplete="new-password"
            bind={form.field('password')}
            hint="Leave empty for a link that opens without one."
          />
        </div>
      </FormShell>
    </div>
  );
}
