import { useMutation } from '@tanstack/react-query';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { useTRPC } from '../../../trpc.ts';
import { SelectField } from '../parts/fields.tsx';
import { useRefreshSite } from '../parts/useRefreshSite.ts';

/** A new goal: its name (its id is derived from it), whether it matches an event or a path, and what. */
export function AddGoalForm({ siteId }: { siteId: string }) {
  const refresh = useRefreshSite(siteId);
  const create = useMutation(useTRPC().siteSettings.createGoal.mutationOptions({ onSuccess: refresh }));
  const form = useForm({
    name: 'addGoal',
    initial: { name: '', type: 'event', match: '' },
    submit: async (values) => {
      await create.mutateAsync({
        id: siteId,
        name: values.name.trim(),
        type: values.type === 'path' ? 'path' : 'event',
        match: values.match.trim(),
      });
      form.reset();
    },
  });
  const isPath = form.values.type === 'path';
  return (
    <div className="site-subsection">
      <h3 className="site-subheading">Add a goal</h3>
      <FormShell form={form} submitLabel="Add goal" busyLabel="Adding…" variant="secondary" label="Add a goal">
        <div className="site-form-row site-form-row-3">
          <Field label="Name" bind={form.field('name')} maxLength={80} placeholder="Signed up" required />
          <SelectField label="Type" bind={form.field('type')}>
            <option value="event">Event</option>
            <option value="path">Page path</option>
          </SelectField>
          <Field
            label={isPath ? 'Path' : 'Event name'}
            bind={form.field('match')}
            placeholder={isPath ? '/thanks or /blog/*' : 'signup'}
            hint={isPath ? 'Starts with /; a * at the end matches every path starting with the rest.' : undefined}
            autoCapitalize="none"
            spellCheck={false}
            required
          />
        </div>
      </FormShell>
    </div>
  );
}
