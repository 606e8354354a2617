import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Field } from '../components/Field.tsx';
import { FormShell } from '../components/FormShell.tsx';
import { GuestPage } from '../components/GuestPage.tsx';
import { Notice } from '../components/Notice.tsx';
import { KEEP_401 } from '../data/queryClient.ts';
import { useForm } from '../forms/useForm.ts';
import { useTRPC } from '../trpc.ts';

export function ResendVerificationPage() {
  const [sent, setSent] = useState<string | null>(null);
  const resend = useMutation(useTRPC().auth.resendVerification.mutationOptions(KEEP_401));
  const form = useForm({
    name: 'resendVerification',
    initial: { email: '' },
    submit: async (values) => setSent((await resend.mutateAsync(values)).message),
  });
  return (
    <GuestPage
      title="Send the confirmation link again"
      intro={sent ? undefined : 'We will e-mail a new link to confirm your address.'}
    >
      {sent ? (
        <Notice>{sent}</Notice>
      ) : (
        <FormShell form={form} submitLabel="Send link" busyLabel="Sending…">
          <Field label="E-mail" bind={form.field('email')} type="email" autoComplete="email" required />
        </FormShell>
      )}
    </GuestPage>
  );
}
