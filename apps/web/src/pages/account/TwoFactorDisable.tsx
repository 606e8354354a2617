import { Field } from '../../components/Field.tsx';
import { FormShell } from '../../components/FormShell.tsx';
import { useForm } from '../../forms/useForm.ts';
import { sendToSignInOn401 } from '../../session.ts';
import { api } from '../../trpc.ts';
import { CodeField } from '../../components/CodeField.tsx';

/** Turning two-factor off takes both the password and a current code. */
export function TwoFactorDisable({ onDisabled }: { onDisabled: () => void }) {
  const form = useForm({
    name: 'twoFactorDisable',
    initial: { password: '', code: '' },
    onProblem: sendToSignInOn401,
    submit: async ({ password, code }) => {
      await api.auth.twoFactorDisable.mutate({ password, code: code.replace(/\s/g, '') });
      onDisabled();
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
