import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { useTRPC } from '../../../trpc.ts';
import { SelectField } from '../parts/fields.tsx';
import type { Funnel } from './data.ts';
import { MAX_STEPS, useFunnelForm } from './useFunnelForm.ts';

/** A new funnel: its name and its 2 to 8 steps in order, each a page path or an event name. */
export function AddFunnelForm({ siteId, onCreated }: { siteId: string; onCreated: (funnel: Funnel) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.funnels.create.mutationOptions());
  const f = useFunnelForm('addFunnel', async (draft) => {
    const { funnel } = await create.mutateAsync({ id: siteId, ...draft });
    await queryClient.invalidateQueries(trpc.funnels.list.queryFilter({ id: siteId }));
    onCreated(funnel);
  });
  return (
    <div className="site-subsection">
      <h3 className="site-subheading">Add a funnel</h3>
      <FormShell
        form={f.form}
        submitLabel="Add funnel"
        busyLabel="Adding…"
        variant="secondary"
        label="Add a funnel"
        after={
          <button type="button" className="button button-secondary" onClick={f.addStep} disabled={!f.canAdd}>
            Add a step
          </button>
        }
      >
        <Field label="Name" bind={f.nameField} maxLength={100} placeholder="Sign-up" required />
        <ol className="funnel-form-steps" aria-label="Steps">
          {f.steps.map((s, i) => {
            const isPage = s.type === 'page';
            return (
              <li key={s.key} className="site-form-row site-form-row-3 funnel-form-step">
                <SelectField label={`Step ${i + 1} type`} bind={s.typeField}>
                  <option value="page">Page</option>
                  <option value="event">Event</option>
                </SelectField>
                <Field
                  label={`Step ${i + 1} ${isPage ? 'path' : 'event name'}`}
                  bind={s.matchField}
                  maxLength={200}
                  placeholder={isPage ? '/pricing or /blog/*' : 'signup'}
                  autoCapitalize="none"
                  spellCheck={false}
                  required
                />
                <div className="funnel-form-remove">
                  <button
                    type="button"
                    className="button button-secondary"
                    aria-label={`Remove step ${i + 1}`}
                    onClick={() => f.removeStep(i)}
                    disabled={!f.canRemove}
                  >
                    Remove
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
        <p className="field-hint">
          2 to {MAX_STEPS} steps, in the order visitors take them. A page path starts with /; a * at the end matches every path
          starting with the rest.
        </p>
      </FormShell>
    </div>
  );
}
