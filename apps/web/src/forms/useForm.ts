import { type ChangeEvent, type FormEvent, useState } from 'react';
import { fieldMessage, type Problem, toProblem } from '../problem.ts';
import { dismissFlash } from '../router.tsx';

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
  const [errors, setErrors] = useState<Partial<Record<F, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const isField = (f: string | undefined): f is F => f !== undefined && Object.hasOwn(opts.initial, f);

  const showProblem = (p: Problem) => {
    if (opts.onProblem?.(p)) return;
    if (isField(p.field)) {
      setErrors({ [p.field]: fieldMessage(p) } as Partial<Record<F, string>>);
      requestAnimationFrame(() => document.getElementById(inputId(opts.name, p.field as string))?.focus());
    } else {
      setFormError(p.title);
    }
  };

  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (busy) return;
    dismissFlash();
    setBusy(true);
    setErrors({});
    setFormError(null);
    opts
      .submit(values)
      .catch((err: unknown) => showProblem(toProblem(err)))
      .finally(() => setBusy(false));
  };

  const field = (name: F): FieldBinding => ({
    id: inputId(opts.name, name),
    name,
    value: values[name],
    error: errors[name],
    onChange: (e) => {
      const value = e.target.value;
      setValues((v) => ({ ...v, [name]: value }));
      setErrors((errs) => (errs[name] ? { ...errs, [name]: undefined } : errs));
    },
  });

  const reset = () => {
    setValues(opts.initial);
    setErrors({});
    setFormError(null);
  };

  return { name: opts.name, values, busy, formError, field, onSubmit, reset };
}
