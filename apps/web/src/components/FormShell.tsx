import type { ReactNode } from 'react';
import type { Form } from '../forms/useForm.ts';
import { useReadOnly } from './ReadOnly.tsx';

interface FormShellProps<F extends string> {
  form: Form<F>;
  submitLabel: string;
  busyLabel?: string;
  variant?: 'primary' | 'secondary' | 'danger';
  /** Accessible name of the form (shown by the surrounding heading). */
  label?: string;
  children: ReactNode;
  after?: ReactNode;
}

/**
 * A form with its top-level error, fields and one submit button that shows when work is under way. Where nothing
 * may change (`ReadOnly`), its fields show what is set, disabled, and it has no buttons.
 */
export function FormShell<F extends string>({
  form,
  submitLabel,
  busyLabel = 'Working…',
  variant = 'primary',
  label,
  children,
  after,
}: FormShellProps<F>) {
  const errorId = `${form.name}-form-error`;
  if (useReadOnly()) {
    return (
      <form name={form.name} className="form" aria-label={label} onSubmit={(e) => e.preventDefault()}>
        <fieldset className="form-read-only" disabled>
          {children}
        </fieldset>
      </form>
    );
  }
  return (
    <form
      name={form.name}
      className="form"
      noValidate
      onSubmit={form.onSubmit}
      aria-label={label}
      aria-busy={form.busy}
      aria-describedby={form.formError ? errorId : undefined}
    >
      {form.formError && (
        <div id={errorId} className="alert alert-error" role="alert">
          {form.formError}
        </div>
      )}
      {children}
      <div className="form-actions">
        <button type="submit" className={`button button-${variant}`} disabled={form.busy}>
          {form.busy ? busyLabel : submitLabel}
        </button>
        {after}
      </div>
    </form>
  );
}
