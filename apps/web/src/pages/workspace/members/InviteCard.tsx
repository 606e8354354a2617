import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { useTRPC } from '../../../trpc.ts';
import { SelectField } from '../SelectField.tsx';
import { INVITE_ROLES, type InviteRole } from '../types.ts';
import { useRefreshMembers } from './useRefreshMembers.ts';

const ROLE_OPTIONS = INVITE_ROLES.map((r) => ({ value: r, label: r.charAt(0).toUpperCase() + r.slice(1) }));

/**
 * Invite someone by e-mail. Refusals are the server's to explain: 402 (the plan's member allowance,
 * pending invitations included) and 409 (already a member, or already invited) show at the top.
 */
export function InviteCard() {
  const refresh = useRefreshMembers();
  const invite = useMutation(useTRPC().members.createInvite.mutationOptions({ onSuccess: refresh }));
  const [sent, setSent] = useState<string | null>(null);
  const form = useForm({
    name: 'invite',
    initial: { email: '', role: 'member' },
    submit: async ({ email, role }) => {
      setSent(null);
      const answer = await invite.mutateAsync({ email, role: role as InviteRole });
      form.reset();
      setSent(answer.invite.email);
    },
  });

  return (
    <Card title="Invite someone">
      <p className="card-intro">They get an e-mail with a link that works once, for 7 days, for that address only.</p>
      {sent && <Notice>An invitation is on its way to {sent}.</Notice>}
      <FormShell form={form} submitLabel="Send invitation" busyLabel="Sending…" label="Invite someone">
        <div className="form-row">
          <Field label="E-mail" bind={form.field('email')} type="email" autoComplete="off" required />
          <SelectField label="Role" bind={form.field('role')} options={ROLE_OPTIONS} />
        </div>
        <p className="field-hint">
          Admins manage everything except the plan; members manage sites and read the rest; viewers see sites and reports.
        </p>
      </FormShell>
    </Card>
  );
}
