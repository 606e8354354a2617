import { useMutation } from '@tanstack/react-query';
import { Field } from '../components/Field.tsx';
import { FormShell } from '../components/FormShell.tsx';
import { GuestPage } from '../components/GuestPage.tsx';
import { Notice } from '../components/Notice.tsx';
import { KEEP_401 } from '../data/queryClient.ts';
import { useForm } from '../forms/useForm.ts';
import { ProblemError } from '../problem.ts';
import { Link, navigate, useQueryParam } from '../router.tsx';
import { useTRPC } from '../trpc.ts';

/** The confirmation link's page: the token comes from the address, the password from the person. */
export function VerifyPage() {
  const token = useQueryParam('token');
  const verify = useMutation(useTRPC().auth.verify.mutationOptions(KEEP_401));
  const form = useForm({
    name: 'verify',
    initial: { password: '' },
    submit: async ({ password }) => {
      const answer = await verify.mutateAsync({ token: token ?? '', password });
      if (!answer.verified) {
        throw new ProblemError({
          title: answer.message ?? 'This confirmation link cannot be used: ask for a new one',
          status: 200,
        });
      }
      navigate('/login', { replace: true, flash: 'Your address is confirmed: sign in to continue.' });
    },
  });

  const resend = (
    <p className="aside">
      Link expired or already used? <Link to="/resend-verification">Send a new one</Link>
    </p>
  );

  if (!token) {
    return (
      <GuestPage title="Confirm your address">
        <Notice tone="error">This page needs the link from your confirmation e-mail: open the link from the e-mail.</Notice>
        {resend}
      </GuestPage>
    );
  }

  return (
    <GuestPage title="Confirm your address" intro="Type the password you chose when signing up to confirm this address is yours.">
      <FormShell form={form} submitLabel="Confirm address" busyLabel="Confirming…">
        <Field label="Password" bind={form.field('password')} type="password" autoComplete="current-password" required />
      </FormShell>
      {resend}
    </GuestPage>
  );
}
