import { useRef, useState } from 'react';
import { type FieldBinding, type Form, inputId } from '../../../forms/useForm.ts';
import { useJudgedSubmit } from '../../../forms/useJudgedSubmit.ts';

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

const STEP_FIELD = /^steps\[\d+\]\.(type|match)$/;

/**
 * The add-a-funnel form: a name and 2 to 8 steps that can be added and removed, with the server as the
 * judge (useJudgedSubmit): a problem naming `name` or `steps[i].type|match` is shown under that input.
 */
export function useFunnelForm(formName: string, submit: (draft: FunnelDraft) => Promise<void>) {
  const nextKey = useRef(0);
  const blankStep = (type: StepType): StepDraft => ({ key: nextKey.current++, type, match: '' });
  const fresh = () => ({ name: '', steps: [blankStep('page'), blankStep('page')] });
  const [draft, setDraft] = useState<{ name: string; steps: StepDraft[] }>(fresh);
  const idOf = (field: string) => inputId(formName, field.replace(/[[\].]+/g, '-').replace(/-$/, ''));
  const judge = useJudgedSubmit({ isField: (f) => f === 'name' || STEP_FIELD.test(f), idOf });

  const bind = (field: string, value: string, set: (value: string) => void): FieldBinding => ({
    id: idOf(field),
    name: field,
    value,
    error: judge.errors[field],
    onChange: (e) => {
      set(e.target.value);
      judge.clearError(field);
    },
  });

  const setStep = (i: number, patch: Partial<StepDraft>) =>
    setDraft((d) => ({ ...d, steps: d.steps.map((s, j) => (j === i ? { ...s, ...patch } : s)) }));
  const setName = (name: string) => setDraft((d) => ({ ...d, name }));

  const form: Form<string> = {
    name: formName,
    values: { name: draft.name },
    busy: judge.busy,
    formError: judge.formError,
    field: (f) => bind(f, draft.name, setName),
    onSubmit: (e) =>
      judge.submitWith(e, async () => {
        await submit({ name: draft.name.trim(), steps: draft.steps.map((s) => ({ type: s.type, match: s.match.trim() })) });
        setDraft(fresh());
      }),
    reset: () => setDraft(fresh()),
  };

  return {
    form,
    nameField: bind('name', draft.name, setName),
    steps: draft.steps.map((s, i) => ({
      key: s.key,
      type: s.type,
      typeField: bind(`steps[${i}].type`, s.type, (v) => setStep(i, { type: v === 'event' ? 'event' : 'page' })),
      matchField: bind(`steps[${i}].match`, s.match, (match) => setStep(i, { match })),
    })),
    canAdd: draft.steps.length < MAX_STEPS,
    canRemove: draft.steps.length > MIN_STEPS,
    addStep: () => {
      judge.clearAll();
      setDraft((d) => ({ ...d, steps: [...d.steps, blankStep('page')].slice(0, MAX_STEPS) }));
    },
    removeStep: (i: number) => {
      // Field names follow positions, so an error under a later step would move to the wrong row.
      judge.clearAll();
      setDraft((d) => (d.steps.length > MIN_STEPS ? { ...d, steps: d.steps.filter((_, j) => j !== i) } : d));
    },
  };
}
