import { type ChangeEvent, type FormEvent, useState } from 'react';
import type { Problem } from '../problem.ts';
import { useJudgedSubmit } from './useJudgedSubmit.ts';

export interface FieldBinding {
  id: string;
  name: string;
  value: string;
  error: string | undefined;
  onChange: (e: ChangeEvent<HTMLInputElement>) => void;
}

export interface FormOptions<F extends string> {
  /** The form's `name`; input ids are `<name>-<field>`, unique on the page. */
  name: string;
  initial: Record<F, string>;
  submit: (values: Record<F, string>) => Promise<void>;
  /** Sees every problem first; return true when it was handled (e.g. a 401 sends the person to sign in). */
  onProblem?: (p: Problem) => boolean;
}

export interface Form<F extends string> {
  name: string;
  values: Record<F, string>;
  busy: boolean;
  formError: string | null;
  field: (name: F) => FieldBinding;
  onSubmit: (e: FormEvent<HTMLFormElement>) => void;
  reset: () => void;
}

export const inputId = (form: string, field: string) => `${form}-${field}`;

/**
 * Form state with the server as the judge: a problem naming one of this form's fields is shown under
 * that field (and focused); any other problem is shown at the top of the form.
 */
export function useForm<F extends string>(opts: FormOptions<F>): Form<F> {
  const [values, setValues] = useState(opts.initial);
  const judge = useJudgedSubmit({
    isField: (f) => Object.hasOwn(opts.initial, f),
    idOf: (f) => inputId(opts.name, f),
    ...(opts.onProblem ? { onProblem: opts.onProblem } : {}),
  });

  const field = (name: F): FieldBinding => ({
    id: inputId(opts.name, name),
    name,
    value: values[name],
    error: judge.errors[name],
    onChange: (e) => {
      const value = e.target.value;
      setValues((v) => ({ ...v, [name]: value }));
      judge.clearError(name);
    },
  });

  const reset = () => {
    setValues(opts.initial);
    judge.clearAll();
  };

  return {
    name: opts.name,
    values,
    busy: judge.busy,
    formError: judge.formError,
    field,
    onSubmit: (e) => judge.submitWith(e, () => opts.submit(values)),
    reset,
  };
}
