import { useMutation } from '@tanstack/react-query';
import { Field } from '../../components/Field.tsx';
import { FormShell } from '../../components/FormShell.tsx';
import { useForm } from '../../forms/useForm.ts';
import { type Enrolment, useTRPC } from '../../trpc.ts';

/** Step one of enrolment: the password, answered with a new secret. */
export function TwoFactorEnroll({ onEnrolled }: { onEnrolled: (e: Enrolment) => void }) {
  const enroll = useMutation(useTRPC().auth.twoFactorEnroll.mutationOptions());
  const form = useForm({
    name: 'twoFactorEnroll',
    initial: { password: '' },
    submit: async (values) => onEnrolled(await enroll.mutateAsync(values)),
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
