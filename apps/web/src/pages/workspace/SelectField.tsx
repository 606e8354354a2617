import type { ChangeEvent } from 'react';
import type { FieldBinding } from '../../forms/useForm.ts';

interface SelectFieldProps {
  label: string;
  bind: FieldBinding;
  options: readonly { value: string; label: string }[];
}

/** A labelled drop-down bound to a useForm field, with the server's error under it like Field. */
export function SelectField({ label, bind, options }: SelectFieldProps) {
  const errorId = `${bind.id}-error`;
  // useForm's bindings are typed for inputs; they only read `target.value`, which a select has too.
  const onChange = (e: ChangeEvent<HTMLSelectElement>) => bind.onChange(e as unknown as ChangeEvent<HTMLInputElement>);
  return (
    <div className={bind.error ? 'field field-invalid' : 'field'}>
      <label htmlFor={bind.id}>{label}</label>
      <select
        id={bind.id}
        name={bind.name}
        value={bind.value}
        onChange={onChange}
        aria-invalid={bind.error ? true : undefined}
        aria-describedby={bind.error ? errorId : undefined}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {bind.error && (
        <p id={errorId} className="field-error">
          {bind.error}
        </p>
      )}
    </div>
  );
}
