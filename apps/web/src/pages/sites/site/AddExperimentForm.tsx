import { useMutation } from '@tanstack/react-query';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { useTRPC } from '../../../trpc.ts';
import { SelectField } from '../parts/fields.tsx';
import { aimAtList } from '../parts/listProblem.ts';
import { useRefreshSite } from '../parts/useRefreshSite.ts';
import { EXPERIMENT_STATUSES, type ExperimentStatus } from '../types.ts';

const variantsOf = (text: string) =>
  text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');

/** A new experiment: key (as data-exp in the page), optional name, variants comma-separated, status. */
export function AddExperimentForm({ siteId }: { siteId: string }) {
  const refresh = useRefreshSite(siteId);
  const create = useMutation(useTRPC().siteSettings.createExperiment.mutationOptions({ onSuccess: refresh }));
  const form = useForm({
    name: 'addExperiment',
    initial: { key: '', name: '', variants: 'control, new', status: 'draft' },
    onProblem: (p) => aimAtList(p, 'variants', (i) => `Variant ${i + 1}`),
    submit: async (values) => {
      const name = values.name.trim();
      const status = EXPERIMENT_STATUSES.find((s) => s === values.status) as ExperimentStatus;
      await create.mutateAsync({
        id: siteId,
        key: values.key.trim(),
        ...(name ? { name } : {}),
        variants: variantsOf(values.variants),
        status,
      });
      form.reset();
    },
  });
  return (
    <div className="site-subsection">
      <h3 className="site-subheading">Add an experiment</h3>
      <FormShell form={form} submitLabel="Add experiment" busyLabel="Adding…" variant="secondary" label="Add an experiment">
        <div className="site-form-row">
          <Field
            label="Key"
            bind={form.field('key')}
            hint="Lower-case letters, digits, _ or -: the data-exp name in your pages."
            placeholder="pricing-page"
            autoCapitalize="none"
            spellCheck={false}
            required
          />
          <Field label="Name (optional)" bind={form.field('name')} maxLength={80} placeholder="New pricing layout" />
        </div>
        <div className="site-form-row">
          <Field
            label="Variants"
            bind={form.field('variants')}
            hint="Two or more, separated by commas."
            autoCapitalize="none"
            spellCheck={false}
            required
          />
          <SelectField label="Status" bind={form.field('status')}>
            {EXPERIMENT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.charAt(0).toUpperCase() + s.slice(1)}
              </option>
            ))}
          </SelectField>
        </div>
      </FormShell>
    </div>
  );
}
