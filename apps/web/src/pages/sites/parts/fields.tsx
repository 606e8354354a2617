import type { ChangeEvent, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';
import type { FieldBinding } from '../../../forms/useForm.ts';

/** The form binding reads only `target.value`, the same on a select or a textarea as on an input. */
const asInputChange = (bind: FieldBinding) => (e: ChangeEvent<HTMLSelectElement | HTMLTextAreaElement>) =>
  bind.onChange(e as unknown as ChangeEvent<HTMLInputElement>);

function describedBy(bind: FieldBinding, hint: string | undefined): string | undefined {
  return [hint ? `${bind.id}-hint` : null, bind.error ? `${bind.id}-error` : null].filter(Boolean).join(' ') || undefined;
}

function FieldFrame({ label, bind, hint, children }: { label: string; bind: FieldBinding; hint?: string; children: ReactNode }) {
  return (
    <div className={bind.error ? 'field field-invalid' : 'field'}>
      <label htmlFor={bind.id}>{label}</label>
      {hint && (
        <p id={`${bind.id}-hint`} className="field-hint">
          {hint}
        </p>
      )}
      {children}
      {bind.error && (
        <p id={`${bind.id}-error`} className="field-error">
          {bind.error}
        </p>
      )}
    </div>
  );
}

type SelectProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'name' | 'value' | 'onChange'>;

/** A labelled select bound to a form field, with its hint and the server's error. */
export function SelectField({
  label,
  bind,
  hint,
  children,
  ...rest
}: SelectProps & { label: string; bind: FieldBinding; hint?: string }) {
  return (
    <FieldFrame label={label} bind={bind} hint={hint}>
      <select
        {...rest}
        id={bind.id}
        name={bind.name}
        value={bind.value}
        onChange={asInputChange(bind)}
        aria-invalid={bind.error ? true : undefined}
        aria-describedby={describedBy(bind, hint)}
      >
        {children}
      </select>
    </FieldFrame>
  );
}

type TextAreaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id' | 'name' | 'value' | 'onChange'>;

/** A labelled textarea bound to a form field, with its hint and the server's error. */
export function TextAreaField({
  label,
  bind,
  hint,
  ...rest
}: TextAreaProps & { label: string; bind: FieldBinding; hint?: string }) {
  return (
    <FieldFrame label={label} bind={bind} hint={hint}>
      <textarea
        {...rest}
        id={bind.id}
        name={bind.name}
        value={bind.value}
        onChange={asInputChange(bind)}
        aria-invalid={bind.error ? true : undefined}
        aria-describedby={describedBy(bind, hint)}
      />
    </FieldFrame>
  );
}
