import { type FormEvent, useState } from 'react';
import { fieldMessage, type Problem, toProblem } from '../problem.ts';
import { dismissFlash } from '../router.tsx';

export interface JudgeOptions {
  /** Whether a problem's `field` names an input of this form. */
  isField: (field: string) => boolean;
  /** The id of that input (focused when its problem is shown). */
  idOf: (field: string) => string;
  /** Sees every problem first; return true when it was handled (e.g. a 401 sends the person to sign in). */
  onProblem?: (p: Problem) => boolean;
}

/**
 * The server as the judge of a form: submitting runs the request once at a time, and a problem naming one
 * of the form's inputs is shown under it (and focused); any other problem at the top of the form. Shared by
 * forms of fixed fields (useForm) and forms whose fields come and go (a funnel's steps).
 */
export function useJudgedSubmit(opts: JudgeOptions) {
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const showProblem = (p: Problem) => {
    if (opts.onProblem?.(p)) return;
    if (p.field && opts.isField(p.field)) {
      const id = opts.idOf(p.field);
      setErrors({ [p.field]: fieldMessage(p) });
      requestAnimationFrame(() => document.getElementById(id)?.focus());
    } else {
      setFormError(p.title);
    }
  };

  /** The form's onSubmit: `run` sends it; a problem it throws is shown. */
  const submitWith = (e: FormEvent<HTMLFormElement>, run: () => Promise<void>) => {
    e.preventDefault();
    if (busy) return;
    dismissFlash();
    setBusy(true);
    setErrors({});
    setFormError(null);
    run()
      .catch((err: unknown) => showProblem(toProblem(err)))
      .finally(() => setBusy(false));
  };

  /** Forgets the problem shown under `field` (the person is changing it). */
  const clearError = (field: string) => setErrors((errs) => (errs[field] ? { ...errs, [field]: undefined } : errs));

  const clearAll = () => {
    setErrors({});
    setFormError(null);
  };

  return { errors, formError, busy, submitWith, clearError, clearAll };
}
