import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Field } from '../components/Field.tsx';
import { FormShell } from '../components/FormShell.tsx';
import { GuestPage } from '../components/GuestPage.tsx';
import { Notice } from '../components/Notice.tsx';
import { KEEP_401 } from '../data/queryClient.ts';
import { useForm } from '../forms/useForm.ts';
import { Link } from '../router.tsx';
import { useTRPC } from '../trpc.ts';

export function ForgotPasswordPage() {
  const [sent, setSent] = useState<string | null>(null);
  const request = useMutation(useTRPC().auth.requestReset.mutationOptions(KEEP_401));
  const form = useForm({
    name: 'requestReset',
    initial: { email: '' },
    submit: async (values) => setSent((await request.mutateAsync(values)).message),
  });
  return (
    <GuestPage title="Reset your password" intro={sent ? undefined : 'We will e-mail you a link to choose a new password.'}>
      {sent ? (
        <Notice>{sent}</Notice>
      ) : (
        <FormShell form={form} submitLabel="Send reset link" busyLabel="Sending…">
          <Field label="E-mail" bind={form.field('email')} type="email" autoComplete="email" required />
        </FormShell>
      )}
      <p className="aside">
        Remembered it? <Link to="/login">Sign in</Link>
      </p>
    </GuestPage>
  );
}
