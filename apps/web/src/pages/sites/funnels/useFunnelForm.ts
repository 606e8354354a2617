import { type FormEvent, useRef, useState } from 'react';
import type { FieldBinding, Form } from '../../../forms/useForm.ts';
import { fieldMessage, toProblem } from '../../../problem.ts';
import { dismissFlash } from '../../../router.tsx';

export type StepType = 'page' | 'event';
export interface StepDraft {
  /** Keeps each row's inputs in place when a step above it is removed. */
  key: number;
  type: StepType;
  match: string;
}
export interface FunnelDraft {
  name: string;
  steps: { type: StepType; match: string }[];
}

export const MIN_STEPS = 2;
export const MAX_STEPS = 8;

/**
 * The add-a-funnel form: a name and 2 to 8 steps that can be added and removed, with the server as the
 * judge as in `useForm` (a problem naming `name` or `steps[i].type|match` is shown under that input and
 * focuses it; any other problem at the top of the form). `useForm` keeps a fixed set of fields, hence this.
 */
export function useFunnelForm(formName: string, submit: (draft: FunnelDraft) => Promise<void>) {
  const nextKey = useRef(0);
  const blankStep = (type: StepType): StepDraft => ({ key: nextKey.current++, type, match: '' });
  const fresh = () => ({ name: '', steps: [blankStep('page'), blankStep('page')] });
  const [draft, setDraft] = useState<{ name: string; steps: StepDraft[] }>(fresh);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const idOf = (field: string) => `${formName}-${field.replace(/[[\].]+/g, '-').replace(/-$/, '')}`;

  const bind = (field: string, value: string, set: (value: string) => void): FieldBinding => ({
    id: idOf(field),
    name: field,
    value,
    error: errors[field],
    onChange: (e) => {
      set(e.target.value);
      setErrors((errs) => (errs[field] ? { ...errs, [field]: '' } : errs));
    },
  });

  const setStep = (i: number, patch: Partial<StepDraft>) =>
    setDraft((d) => ({ ...d, steps: d.steps.map((s, j) => (j === i ? { ...s, ...patch } : s)) }));

  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (busy) return;
    dismissFlash();
    setBusy(true);
    setErrors({});
    setFormError(null);
    submit({ name: draft.name.trim(), steps: draft.steps.map((s) => ({ type: s.type, match: s.match.trim() })) })
      .then(() => {
        setDraft(fresh());
      })
      .catch((err: unknown) => {
        const p = toProblem(err);
        const known = p.field === 'name' || /^steps\[\d+\]\.(type|match)$/.test(p.field ?? '');
        if (p.field && known) {
          setErrors({ [p.field]: fieldMessage(p) });
          const id = idOf(p.field);
          requestAnimationFrame(() => document.getElementById(id)?.focus());
        } else {
          setFormError(p.title);
        }
      })
      .finally(() => setBusy(false));
  };

  const form: Form<string> = {
    name: formName,
    values: { name: draft.name },
    busy,
    formError,
    field: (f) => bind(f, draft.name, (name) => setDraft((d) => ({ ...d, name }))),
    onSubmit,
    reset: () => setDraft(fresh()),
  };

  return {
    form,
    nameField: bind('name', draft.name, (name) => setDraft((d) => ({ ...d, name }))),
    steps: draft.steps.map((s, i) => ({
      key: s.key,
      type: s.type,
      typeField: bind(`steps[${i}].type`, s.type, (v) => setStep(i, { type: v === 'event' ? 'event' : 'page' })),
      matchField: bind(`steps[${i}].match`, s.match, (match) => setStep(i, { match })),
    })),
    canAdd: draft.steps.length < MAX_STEPS,
    canRemove: draft.steps.length > MIN_STEPS,
    addStep: () => {
      setErrors({});
      setDraft((d) => ({ ...d, steps: [...d.steps, blankStep('page')].slice(0, MAX_STEPS) }));
    },
    removeStep: (i: number) => {
      // Field names follow positions, so an error under a later step would move to the wrong row.
      setErrors({});
      setDraft((d) => (d.steps.length > MIN_STEPS ? { ...d, steps: d.steps.filter((_, j) => j !== i) } : d));
    },
  };
}
