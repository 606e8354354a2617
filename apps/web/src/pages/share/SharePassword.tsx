import { Field } from '../../components/Field.tsx';
import { FormShell } from '../../components/FormShell.tsx';
import { useForm } from '../../forms/useForm.ts';

/** The password step of a protected link: a wrong one is said under the field, a wait at the top. */
export function SharePassword({ onSubmit }: { onSubmit: (password: string) => Promise<void> }) {
  const form = useForm({
    name: 'share',
    initial: { password: '' },
    submit: (values) => onSubmit(values.password),
  });
  return (
    <>
      <p className="lead">This dashboard is protected: type the password you were given with the link.</p>
      <FormShell form={form} submitLabel="Open the dashboard" busyLabel="Opening…" label="Password of the shared link">
        <Field label="Password" type="password" autoComplete="current-password" bind={form.field('password')} required />
      </FormShell>
    </>
  );
}
