import { useState } from 'react';
import { Field } from '../components/Field.tsx';
import { FormShell } from '../components/FormShell.tsx';
import { GuestPage } from '../components/GuestPage.tsx';
import { useForm } from '../forms/useForm.ts';
import { Link, navigate } from '../router.tsx';
import { api } from '../trpc.ts';
import { TwoFactorStep } from './TwoFactorStep.tsx';

/** Sign-in: e-mail and password, then the two-factor code when the account has it on. */
export function LoginPage() {
  const [challenge, setChallenge] = useState<string | null>(null);
  const form = useForm({
    name: 'login',
    initial: { email: '', password: '' },
    submit: async (values) => {
      const res = await api.auth.login.mutate(values);
      if ('twoFactorRequired' in res) setChallenge(res.challenge);
      else navigate('/account');
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
