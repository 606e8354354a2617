import { useState } from 'react';
import { Card } from '../../components/Card.tsx';
import { Field } from '../../components/Field.tsx';
import { FormShell } from '../../components/FormShell.tsx';
import { Notice } from '../../components/Notice.tsx';
import { useForm } from '../../forms/useForm.ts';
import { sendToSignInOn401 } from '../../session.ts';
import { api } from '../../trpc.ts';

/** Password change: keeps this session and signs out the others (so the session list is reloaded). */
export function ChangePasswordCard({ onChanged }: { onChanged: () => void }) {
  const [done, setDone] = useState(false);
  const form = useForm({
    name: 'changePassword',
    initial: { currentPassword: '', newPassword: '' },
    onProblem: sendToSignInOn401,
    submit: async (values) => {
      setDone(false);
      await api.auth.changePassword.mutate(values);
      form.reset();
      setDone(true);
      onChanged();
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
