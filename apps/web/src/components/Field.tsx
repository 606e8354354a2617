import type { InputHTMLAttributes } from 'react';
import type { FieldBinding } from '../forms/useForm.ts';

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'name' | 'value' | 'onChange'>;

interface FieldProps extends InputProps {
  label: string;
  bind: FieldBinding;
  hint?: string;
}

/** A labelled input; its hint and the server's error are tied to it with aria-describedby. */
export function Field({ label, bind, hint, ...input }: FieldProps) {
  const hintId = `${bind.id}-hint`;
  const errorId = `${bind.id}-error`;
  const describedBy = [hint ? hintId : null, bind.error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={bind.error ? 'field field-invalid' : 'field'}>
      <label htmlFor={bind.id}>{label}</label>
      {hint && (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      )}
      <input
        {...input}
        id={bind.id}
        name={bind.name}
        value={bind.value}
        onChange={bind.onChange}
        aria-invalid={bind.error ? true : undefined}
        aria-describedby={describedBy}
      />
      {bind.error && (
        <p id={errorId} className="field-error">
          {bind.error}
        </p>
      )}
    </div>
  );
}
