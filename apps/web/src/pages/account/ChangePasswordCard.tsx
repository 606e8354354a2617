import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Card } from '../../components/Card.tsx';
import { Field } from '../../components/Field.tsx';
import { FormShell } from '../../components/FormShell.tsx';
import { Notice } from '../../components/Notice.tsx';
import { useForm } from '../../forms/useForm.ts';
import { useTRPC } from '../../trpc.ts';

/** Password change: keeps this session and signs out the others (so the session list loads again). */
export function ChangePasswordCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const change = useMutation(
    trpc.auth.changePassword.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.auth.sessions.queryFilter()),
    }),
  );
  const [done, setDone] = useState(false);
  const form = useForm({
    name: 'changePassword',
    initial: { currentPassword: '', newPassword: '' },
    submit: async (values) => {
      setDone(false);
      await change.mutateAsync(values);
      form.reset();
      setDone(true);
    },
  });
  return (
    <Card title="Password">
      {done && <Notice>Your password is changed. Your other sessions were signed out.</Notice>}
      <FormShell form={form} submitLabel="Change password" busyLabel="Saving…" variant="secondary">
        <Field
          label="Current password"
          bind={form.field('currentPassword')}
          type="password"
          autoComplete="current-password"
          required
        />
        <Field
          label="New password"
          bind={form.field('newPassword')}
          type="password"
          autoComplete="new-password"
          hint="10 or more characters, not one that appears in known data breaches."
          required
        />
      </FormShell>
    </Card>
  );
}
