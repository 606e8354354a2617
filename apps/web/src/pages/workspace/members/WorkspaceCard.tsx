import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { formatDate } from '../../../lib/format.ts';
import { useTRPC } from '../../../trpc.ts';
import type { WorkspaceInfo } from '../types.ts';

/** The workspace's name: a rename form for those who may (members:write), plain text for the others. */
export function WorkspaceCard(props: { workspace: WorkspaceInfo; canRename: boolean }) {
  const { workspace } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // The name shows on this page and in the header's workspace switcher.
  const rename = useMutation(
    trpc.workspace.update.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries(trpc.workspace.get.queryFilter()),
          queryClient.invalidateQueries(trpc.me.get.queryFilter()),
        ]),
    }),
  );
  const [done, setDone] = useState(false);
  const form = useForm({
    name: 'workspaceName',
    initial: { name: workspace.name },
    submit: async ({ name }) => {
      setDone(false);
      await rename.mutateAsync({ name });
      setDone(true);
    },
  });

  return (
    <Card title="Workspace" aside={<span className="badge">{workspace.plan} plan</span>}>
      {props.canRename ? (
        <>
          {done && <Notice>The workspace is renamed.</Notice>}
          <FormShell form={form} submitLabel="Rename" busyLabel="Saving…" variant="secondary">
            <Field label="Workspace name" bind={form.field('name')} autoComplete="off" maxLength={80} required />
          </FormShell>
        </>
      ) : (
        <dl className="facts">
          <dt>Name</dt>
          <dd>{workspace.name}</dd>
        </dl>
      )}
      <p className="muted small">Created {formatDate(workspace.createdAt)}.</p>
    </Card>
  );
}
