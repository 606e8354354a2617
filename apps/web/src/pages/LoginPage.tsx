import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Field } from '../components/Field.tsx';
import { FormShell } from '../components/FormShell.tsx';
import { GuestPage } from '../components/GuestPage.tsx';
import { KEEP_401 } from '../data/queryClient.ts';
import { useForm } from '../forms/useForm.ts';
import { Link } from '../router.tsx';
import { useEnterDashboard } from '../session.ts';
import { useTRPC } from '../trpc.ts';
import { TwoFactorStep } from './TwoFactorStep.tsx';

/** Sign-in: e-mail and password, then the two-factor code when the account has it on. */
export function LoginPage() {
  const [challenge, setChallenge] = useState<string | null>(null);
  const login = useMutation(useTRPC().auth.login.mutationOptions(KEEP_401));
  const enter = useEnterDashboard();
  const form = useForm({
    name: 'login',
    initial: { email: '', password: '' },
    submit: async (values) => {
      const res = await login.mutateAsync(values);
      if ('twoFactorRequired' in res) setChallenge(res.challenge);
      else enter(res.user.id);
    },
  });

  if (challenge) return <TwoFactorStep challenge={challenge} onRestart={() => setChallenge(null)} />;

  return (
    <GuestPage title="Sign in">
      <FormShell form={form} submitLabel="Sign in" busyLabel="Signing in…">
        <Field label="E-mail" bind={form.field('email')} type="email" autoComplete="username" required />
        <Field label="Password" bind={form.field('password')} type="password" autoComplete="current-password" required />
      </FormShell>
      <ul className="aside links">
        <li>
          <Link to="/forgot-password">Forgot your password?</Link>
        </li>
        <li>
          <Link to="/resend-verification">Need a new confirmation link?</Link>
        </li>
        <li>
          New here? <Link to="/signup">Create an account</Link>
        </li>
      </ul>
    </GuestPage>
  );
}
