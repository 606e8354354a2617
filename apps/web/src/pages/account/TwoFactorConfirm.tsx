import { useMutation, useQueryClient } from '@tanstack/react-query';
import { CodeField } from '../../components/CodeField.tsx';
import { FormShell } from '../../components/FormShell.tsx';
import { QrCode } from '../../components/QrCode.tsx';
import { useForm } from '../../forms/useForm.ts';
import { groupSecret } from '../../lib/format.ts';
import { type Enrolment, useTRPC } from '../../trpc.ts';

/** Step two of enrolment: scan the QR code (or type the secret), then prove it with a first code. */
export function TwoFactorConfirm(props: { enrolment: Enrolment; onConfirmed: () => void; onCancel: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Two-factor is on once `me` says so: the card shows it when the code is accepted.
  const confirm = useMutation(
    trpc.auth.twoFactorConfirm.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.me.get.queryFilter()),
    }),
  );
  const form = useForm({
    name: 'twoFactorConfirm',
    initial: { code: '' },
    submit: async ({ code }) => {
      await confirm.mutateAsync({ code: code.replace(/\s/g, '') });
      props.onConfirmed();
    },
  });
  return (
    <div className="enrol">
      <ol className="steps">
        <li>
          Scan this QR code with your authenticator app.
          <QrCode value={props.enrolment.otpauthUri} label="QR code for your authenticator app" />
        </li>
        <li>
          Or type this key by hand:{' '}
          <code id="totp-secret" className="secret" data-secret={props.enrolment.secret}>
            {groupSecret(props.enrolment.secret)}
          </code>
        </li>
        <li>Type the six-digit code the app shows to turn two-factor sign-in on.</li>
      </ol>
      <FormShell
        form={form}
        submitLabel="Turn on"
        busyLabel="Checking…"
        after={
          <button type="button" className="button button-link" onClick={props.onCancel}>
            Cancel
          </button>
        }
      >
        <CodeField bind={form.field('code')} />
      </FormShell>
    </div>
  );
}
