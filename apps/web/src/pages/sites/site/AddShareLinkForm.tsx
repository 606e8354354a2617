import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { useTRPC } from '../../../trpc.ts';

/**
 * A new shared link: what it is for, an optional password asked before the dashboard opens, and whether
 * the site's own pages may show it in a frame (off unless ticked).
 */
export function AddShareLinkForm({ siteId, onCreated }: { siteId: string; onCreated: () => void }) {
  const create = useMutation(useTRPC().shares.create.mutationOptions({ onSuccess: onCreated }));
  const [allowEmbedding, setAllowEmbedding] = useState(false);
  const form = useForm({
    name: 'addShare',
    initial: { label: '', password: '' },
    submit: async (values) => {
      await create.mutateAsync({
        id: siteId,
        label: values.label.trim(),
        ...(values.password === '' ? {} : { password: values.password }),
        ...(allowEmbedding ? { allowEmbedding: true } : {}),
      });
      form.reset();
      setAllowEmbedding(false);
    },
  });
  return (
    <div className="site-subsection">
      <h3 className="site-subheading">Create a shared link</h3>
      <FormShell
        form={form}
        submitLabel="Create shared link"
        busyLabel="Creating…"
        variant="secondary"
        label="Create a shared link"
      >
        <div className="site-form-row">
          <Field label="Label" bind={form.field('label')} maxLength={80} placeholder="Board report" required />
          <Field
            label="Password (optional)"
            type="password"
            autoComplete="new-password"
            bind={form.field('password')}
            hint="Leave empty for a link that opens without one."
          />
        </div>
        <label className="check">
          <input
            type="checkbox"
            name="allowEmbedding"
            checked={allowEmbedding}
            onChange={(e) => setAllowEmbedding(e.target.checked)}
          />
          <span>
            Allow embedding
            <span className="check-note">
              Pages on this site’s own hostnames may show the view in a frame (an iframe). Other sites never can.
            </span>
          </span>
        </label>
      </FormShell>
    </div>
  );
}
