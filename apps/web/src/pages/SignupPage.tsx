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

export function SignupPage() {
  const [sent, setSent] = useState<string | null>(null);
  const signup = useMutation(useTRPC().auth.signup.mutationOptions(KEEP_401));
  const form = useForm({
    name: 'signup',
    initial: { email: '', password: '', workspaceName: '' },
    submit: async ({ email, password, workspaceName }) => {
      const name = workspaceName.trim();
      const res = await signup.mutateAsync({ email, password, ...(name ? { workspaceName: name } : {}) });
      setSent(res.message);
    },
  });

  if (sent) {
    return (
      <GuestPage title="Check your inbox">
        <Notice>{sent}</Notice>
        <p>
          Open the link in the e-mail to confirm your address. Nothing arrived after a few minutes?{' '}
          <Link to="/resend-verification">Send the link again</Link>.
        </p>
      </GuestPage>
    );
  }

  return (
    <GuestPage
      title="Create your account"
      intro="Cookie-free analytics and bot protection. Your workspace starts on the Free plan."
    >
      <FormShell form={form} submitLabel="Create account" busyLabel="Creating account…">
        <Field label="E-mail" bind={form.field('email')} type="email" autoComplete="email" required />
        <Field
          label="Password"
          bind={form.field('password')}
          type="password"
          autoComplete="new-password"
          hint="10 or more characters, not one that appears in known data breaches."
          required
        />
        <Field
          label="Workspace name (optional)"
          bind={form.field('workspaceName')}
          autoComplete="organization"
          hint="You can change it later."
        />
      </FormShell>
      <p className="aside">
        Already have an account? <Link to="/login">Sign in</Link>
      </p>
    </GuestPage>
  );
}
