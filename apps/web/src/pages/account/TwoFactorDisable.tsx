import { useMutation, useQueryClient } from '@tanstack/react-query';
import { CodeField } from '../../components/CodeField.tsx';
import { Field } from '../../components/Field.tsx';
import { FormShell } from '../../components/FormShell.tsx';
import { useForm } from '../../forms/useForm.ts';
import { useTRPC } from '../../trpc.ts';

/** Turning two-factor off takes both the password and a current code. */
export function TwoFactorDisable() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const disable = useMutation(
    trpc.auth.twoFactorDisable.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.me.get.queryFilter()),
    }),
  );
  const form = useForm({
    name: 'twoFactorDisable',
    initial: { password: '', code: '' },
    submit: async ({ password, code }) => {
      await disable.mutateAsync({ password, code: code.replace(/\s/g, '') });
    },
  });
  return (
    <>
      <p className="card-intro">
        Two-factor sign-in is on: signing in asks for a code from your authenticator app after your password.
      </p>
      <details className="disclosure">
        <summary>Turn two-factor sign-in off</summary>
        <FormShell form={form} submitLabel="Turn off" busyLabel="Turning off…" variant="danger">
          <Field label="Your password" bind={form.field('password')} type="password" autoComplete="current-password" required />
          <CodeField bind={form.field('code')} />
        </FormShell>
      </details>
    </>
  );
}
