import { Field } from '../../components/Field.tsx';
import { FormShell } from '../../components/FormShell.tsx';
import { useForm } from '../../forms/useForm.ts';
import { sendToSignInOn401 } from '../../session.ts';
import { api, type Enrolment } from '../../trpc.ts';

/** Step one of enrolment: the password, answered with a new secret. */
export function TwoFactorEnroll({ onEnrolled }: { onEnrolled: (e: Enrolment) => void }) {
  const form = useForm({
    name: 'twoFactorEnroll',
    initial: { password: '' },
    onProblem: sendToSignInOn401,
    submit: async (values) => onEnrolled(await api.auth.twoFactorEnroll.mutate(values)),
  });
  return (
    <>
      <p className="card-intro">
        Two-factor sign-in is off. Turn it on to ask for a code from an authenticator app (such as 1Password, Google Authenticator
        or Aegis) after your password.
      </p>
      <FormShell form={form} submitLabel="Set up two-factor sign-in" busyLabel="Starting…">
        <Field label="Your password" bind={form.field('password')} type="password" autoComplete="current-password" required />
      </FormShell>
    </>
  );
}
