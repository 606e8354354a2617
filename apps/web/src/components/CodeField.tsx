import type { FieldBinding } from '../forms/useForm.ts';
import { Field } from './Field.tsx';

/** The six-digit authenticator code input, the same wherever a code is asked for. */
export function CodeField({ bind }: { bind: FieldBinding }) {
  return (
    <Field
      label="Six-digit code"
      bind={bind}
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={7}
      className="input-code"
      required
    />
  );
}
