import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Card } from '../../../../components/Card.tsx';
import { ConfirmButton } from '../../../../components/ConfirmButton.tsx';
import { Field } from '../../../../components/Field.tsx';
import { FormShell } from '../../../../components/FormShell.tsx';
import { Notice } from '../../../../components/Notice.tsx';
import { IfWritable, ReadOnly, useCan } from '../../../../components/ReadOnly.tsx';
import { useForm } from '../../../../forms/useForm.ts';
import { formatDay } from '../../../../lib/format.ts';
import { toProblem } from '../../../../problem.ts';
import { useTRPC } from '../../../../trpc.ts';
import type { Annotation } from './data.ts';

/**
 * The period's annotations (marked on the chart above), each removable, and the form to mark a day: a
 * deploy, a campaign, an outage. Agents add them over REST and MCP too.
 */
export function AnnotationsCard({
  siteId,
  annotations,
  lastDay,
}: {
  siteId: string;
  annotations: Annotation[];
  /** The period's last day: the form's starting day. */
  lastDay: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries(trpc.annotations.list.queryFilter());
  const create = useMutation(trpc.annotations.create.mutationOptions());
  const remove = useMutation(trpc.annotations.delete.mutationOptions({ onSuccess: refresh }));
  const form = useForm({
    name: 'addAnnotation',
    initial: { day: lastDay, text: '' },
    submit: async (v) => {
      await create.mutateAsync({ id: siteId, day: v.day, text: v.text });
      await refresh();
      form.reset();
    },
  });
  const deleting = remove.isPending ? remove.variables.annotation : null;
  const canWrite = useCan('sites:write');
  return (
    <Card title="Annotations">
      <ReadOnly when={canWrite === false}>
        {remove.error && <Notice tone="error">{toProblem(remove.error).title}</Notice>}
        {annotations.length === 0 ? (
          <p className="site-none">No annotations in this period.</p>
        ) : (
          <ul className="dash-notes" aria-label="Annotations of this period">
            {annotations.map((a) => (
              <li key={a.id} className="dash-note">
                <time dateTime={a.day}>{formatDay(a.day)}</time>
                <span className="dash-note-text">{a.text}</span>
                <ConfirmButton
                  label="Delete"
                  name={`Delete annotation ${a.text}`}
                  question="Delete this annotation?"
                  confirmLabel="Delete annotation"
                  busy={deleting === a.id}
                  busyLabel="Deleting…"
                  disabled={deleting !== null}
                  onConfirm={() => remove.mutate({ id: siteId, annotation: a.id })}
                />
              </li>
            ))}
          </ul>
        )}
        <IfWritable>
          <FormShell form={form} submitLabel="Add annotation" busyLabel="Adding…" variant="secondary" label="Add an annotation">
            <div className="site-form-row">
              <Field label="Day" bind={form.field('day')} type="date" required />
              <Field
                label="Text"
                bind={form.field('text')}
                maxLength={280}
                placeholder="Deployed the new pricing page"
                required
              />
            </div>
          </FormShell>
        </IfWritable>
      </ReadOnly>
    </Card>
  );
}
