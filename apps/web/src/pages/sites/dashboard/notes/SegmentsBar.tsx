import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ConfirmButton } from '../../../../components/ConfirmButton.tsx';
import { Field } from '../../../../components/Field.tsx';
import { FormShell } from '../../../../components/FormShell.tsx';
import { Notice } from '../../../../components/Notice.tsx';
import { IfWritable, ReadOnly, useCan } from '../../../../components/ReadOnly.tsx';
import { useForm } from '../../../../forms/useForm.ts';
import { toProblem } from '../../../../problem.ts';
import { useTRPC } from '../../../../trpc.ts';
import type { Filters } from '../choices.ts';
import { type Segment, useSegments } from './data.ts';

const sameFilters = (a: Filters, b: Filters) => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
};

/**
 * The site's saved segments: choosing one applies its filters (they land in the address like clicked rows);
 * the filters in force can be saved as a new one, and the one in force deleted. Shared with everyone who sees
 * the site, and usable by name in the API (`segment=`).
 */
export function SegmentsBar({
  siteId,
  filters,
  onApply,
}: {
  siteId: string;
  filters: Filters;
  onApply: (filters: Filters) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const segments = useSegments(siteId).data?.segments ?? [];
  const refresh = () => queryClient.invalidateQueries(trpc.segments.list.queryFilter({ id: siteId }));
  const create = useMutation(trpc.segments.create.mutationOptions());
  const remove = useMutation(trpc.segments.delete.mutationOptions({ onSuccess: refresh }));
  const form = useForm({
    name: 'saveSegment',
    initial: { name: '' },
    submit: async (v) => {
      await create.mutateAsync({ id: siteId, name: v.name, filters: { ...filters } });
      await refresh();
      form.reset();
    },
  });
  const inForce: Segment | undefined = segments.find((s) => sameFilters(s.filters, filters));
  const filtered = Object.keys(filters).length > 0;
  // A segment keeps the catalogue's dimensions (the API refuses a custom property's filter).
  const properties = Object.keys(filters).filter((name) => name.startsWith('prop:'));
  // A role that cannot save segments still picks one.
  const canWrite = useCan('sites:write');
  if (segments.length === 0 && (!filtered || canWrite === false)) return null;
  return (
    <section className="dash-segments" aria-label="Segments">
      <ReadOnly when={canWrite === false}>
        {remove.error && <Notice tone="error">{toProblem(remove.error).title}</Notice>}
        {segments.length > 0 && (
          <div className="field dash-segment-pick">
            <label htmlFor="dash-segment">Segment</label>
            <select
              id="dash-segment"
              value={inForce?.id ?? ''}
              onChange={(e) => onApply(segments.find((s) => s.id === e.target.value)?.filters ?? {})}
            >
              <option value="">{filtered && !inForce ? 'Unsaved filters' : 'All visitors'}</option>
              {segments.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </div>
        )}
        {inForce && (
          <ConfirmButton
            label="Delete segment"
            name={`Delete segment ${inForce.name}`}
            question={`Delete the segment ${inForce.name}? The filters stay in force here.`}
            confirmLabel="Delete segment"
            busy={remove.isPending}
            busyLabel="Deleting…"
            onConfirm={() => remove.mutate({ id: siteId, segment: inForce.id })}
          />
        )}
        <IfWritable>
          {filtered && !inForce && properties.length > 0 && (
            <Notice tone="info">
              Segments keep the dashboard’s dimensions only: take off the property filter {properties.join(', ')} to save the
              others as a segment.
            </Notice>
          )}
          {filtered && !inForce && properties.length === 0 && (
            <FormShell
              form={form}
              submitLabel="Save as segment"
              busyLabel="Saving…"
              variant="secondary"
              label="Save filters as a segment"
            >
              <Field
                label="Segment name"
                bind={form.field('name')}
                maxLength={100}
                placeholder="Paid traffic from Germany"
                required
              />
            </FormShell>
          )}
        </IfWritable>
      </ReadOnly>
    </section>
  );
}
