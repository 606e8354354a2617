import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { refreshHeader } from '../../../components/Layout.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { formatDate } from '../../../format.ts';
import { sendToSignInOn401 } from '../../../session.ts';
import { api } from '../../../trpc.ts';
import type { WorkspaceInfo } from '../types.ts';

/** The workspace's name: a rename form for those who may (members:write), plain text for the others. */
export function WorkspaceCard(props: { workspace: WorkspaceInfo; canRename: boolean; onRenamed: () => void }) {
  const { workspace } = props;
  const [done, setDone] = useState(false);
  const form = useForm({
    name: 'workspaceName',
    initial: { name: workspace.name },
    onProblem: sendToSignInOn401,
    submit: async ({ name }) => {
      setDone(false);
      await api.workspace.update.mutate({ name });
      setDone(true);
      props.onRenamed();
      refreshHeader();
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
