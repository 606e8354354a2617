import { useMutation } from '@tanstack/react-query';
import { Field } from '../components/Field.tsx';
import { FormShell } from '../components/FormShell.tsx';
import { GuestPage } from '../components/GuestPage.tsx';
import { Notice } from '../components/Notice.tsx';
import { KEEP_401 } from '../data/queryClient.ts';
import { useForm } from '../forms/useForm.ts';
import { Link, navigate, useQueryParam } from '../router.tsx';
import { useTRPC } from '../trpc.ts';

/** The reset link's page: a new password for the token in the address. */
export function ResetPasswordPage() {
  const token = useQueryParam('token');
  const reset = useMutation(useTRPC().auth.reset.mutationOptions(KEEP_401));
  const form = useForm({
    name: 'reset',
    initial: { password: '' },
    submit: async ({ password }) => {
      await reset.mutateAsync({ token: token ?? '', password });
      navigate('/login', { replace: true, flash: 'Your password is changed: sign in with the new one.' });
    },
  });

  const again = (
    <p className="aside">
      Link expired or already used? <Link to="/forgot-password">Ask for a new one</Link>
    </p>
  );

  if (!token) {
    return (
      <GuestPage title="Choose a new password">
        <Notice tone="error">This page needs the link from your reset e-mail: open the link from the e-mail.</Notice>
        {again}
      </GuestPage>
    );
  }

  return (
    <GuestPage title="Choose a new password" intro="Setting it signs you out everywhere and revokes the API tokens you made.">
      <FormShell form={form} submitLabel="Set new password" busyLabel="Saving…">
        <Field
          label="New password"
          bind={form.field('password')}
          type="password"
          autoComplete="new-password"
          hint="10 or more characters, not one that appears in known data breaches."
          required
        />
      </FormShell>
      {again}
    </GuestPage>
  );
}
