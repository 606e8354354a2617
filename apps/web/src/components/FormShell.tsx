import type { ReactNode } from 'react';
import type { Form } from '../forms/useForm.ts';

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

/** A form with its top-level error, fields and one submit button that shows when work is under way. */
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
