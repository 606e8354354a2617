import { useMutation } from '@tanstack/react-query';
import { CodeField } from '../components/CodeField.tsx';
import { FormShell } from '../components/FormShell.tsx';
import { GuestPage } from '../components/GuestPage.tsx';
import { KEEP_401 } from '../data/queryClient.ts';
import { useForm } from '../forms/useForm.ts';
import { useEnterDashboard } from '../session.ts';
import { useTRPC } from '../trpc.ts';

/** Second sign-in step: the current code from the authenticator app, for the challenge of step one. */
export function TwoFactorStep({ challenge, onRestart }: { challenge: string; onRestart: () => void }) {
  const login = useMutation(useTRPC().auth.loginTwoFactor.mutationOptions(KEEP_401));
  const enter = useEnterDashboard();
  const form = useForm({
    name: 'loginTwoFactor',
    initial: { code: '' },
    submit: async ({ code }) => {
      const res = await login.mutateAsync({ challenge, code: code.replace(/\s/g, '') });
      enter(res.user.id);
    },
  });
  return (
    <GuestPage
      title="Two-factor sign-in"
      intro="Open your authenticator app and type the current six-digit code for Unseen Stats."
    >
      <FormShell
        form={form}
        submitLabel="Verify code"
        busyLabel="Checking…"
        after={
          <button type="button" className="button button-link" onClick={onRestart}>
            Start over
          </button>
        }
      >
        <CodeField bind={form.field('code')} />
      </FormShell>
    </GuestPage>
  );
}
